/**
 * The behaviours every OralStore promises, run against each backend. A backend passes
 * this or it does not ship: the router is written against these promises, not against
 * any one database.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  IDEMPOTENCY_PENDING_MS, IDEMPOTENCY_TTL_MS,
  type AssessmentRecord, type ClassRecord, type CourseRecord, type ExamKind, type IdempotencyBegin, type OralStore,
} from "../../src/store/types.js";
import { describeScopingContract } from "./scoping-contract.js";
import { describeLaunchContract } from "./launch-contract.js";
import { describeLtiContract } from "./lti-contract.js";
import { describeLtiCourseContract } from "./lti-course-contract.js";
import { describeLtiGradebookContract } from "./lti-gradebook-contract.js";

/** Not the default organization: nothing here may work only because of a fallback to it. */
const ORG = "north";

export interface ContractOptions {
  /**
   * True when two stores opened on the same place share records (a file, a database),
   * which unlocks the "survives reopen" tests.
   */
  persistent: boolean;
}

/**
 * `makeStore(place)` opens a store on `place`: the same place gives stores over the same
 * records (for persistent backends), a new place gives an empty store. Each test uses
 * its own place, so tests never see each other's records.
 */
export function describeStoreContract(
  name: string,
  makeStore: (place: string) => OralStore,
  options: ContractOptions,
): void {
  describe(`${name}: the OralStore contract`, () => {
    let places = 0;
    const opened: OralStore[] = [];
    const place = () => `p${++places}`;
    const open = (where = place()) => {
      const store = makeStore(where);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString();
    const course = (id: string, minute = 0, data: Record<string, unknown> = {}): CourseRecord =>
      ({ id, name: `Course ${id}`, data: { _id: id, ...data }, createdAt: at(minute) });
    const klass = (id: string, courseId: string, minute = 0): ClassRecord =>
      ({ id, courseId, name: `Class ${id}`, data: { _id: id, courseId }, createdAt: at(minute) });
    const exam = (id: string, classId: string, courseId: string | undefined, minute = 0, kind: ExamKind = "oral"): AssessmentRecord =>
      ({ id, kind, classId, courseId, name: `Exam ${id}`, data: { _id: id, classId }, createdAt: at(minute) });
    const ids = (records: { id: string }[]) => records.map((r) => r.id);

    describeScopingContract(() => open(), { course, klass, exam, ids });
    describeLaunchContract(() => open());
    describeLtiContract(() => open());
    // Persistent backends: a store opened again on the same place sees the links.
    const placed = new WeakMap<OralStore, string>();
    describeLtiCourseContract(() => { const where = place(); const s = open(where); placed.set(s, where); return s; }, options.persistent ? (s) => open(placed.get(s)) : undefined);
    describeLtiGradebookContract(() => { const where = place(); const s = open(where); placed.set(s, where); return s; }, options.persistent ? (s) => open(placed.get(s)) : undefined);

    it("gives back what was put, with unknown fields of data kept", async () => {
      const store = open();
      await store.init();
      const data = { _id: "c1", futureField: { nested: [1, "two", null, true] }, unicode: "Prüfung — 口試 ✓", n: 1.5 };
      await store.putCourse(ORG, course("c1", 0, data));
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putAssessment(ORG, exam("e1", "k1", "c1"));
      expect(await store.getCourse(ORG, "c1")).toEqual({ id: "c1", name: "Course c1", data, createdAt: at(0) });
      expect(await store.getClass(ORG, "k1")).toEqual(klass("k1", "c1"));
      expect(await store.getAssessment(ORG, "e1")).toEqual(exam("e1", "k1", "c1"));
      expect((await store.getCourse(ORG, "c1"))?.createdAt).toBe("2025-01-01T09:00:00.000Z");
    });

    it("answers undefined (not an error) for ids it does not know", async () => {
      const store = open();
      expect(await store.getCourse(ORG, "nope")).toBeUndefined();
      expect(await store.getClass(ORG, "nope")).toBeUndefined();
      expect(await store.getAssessment(ORG, "nope")).toBeUndefined();
      expect(await store.listClasses(ORG, "nope")).toEqual([]);
      expect(await store.listAssessments(ORG, "nope")).toEqual([]);
      await expect(store.deleteCourse(ORG, "nope")).resolves.toBeUndefined();
    });

    it("replaces a record put again with the same id, keeping one copy in its list", async () => {
      const store = open();
      await store.putCourse(ORG, course("c1", 0, { v: 1 }));
      await store.putCourse(ORG, course("c2", 5));
      await store.putCourse(ORG, { ...course("c1", 0, { v: 2 }), name: "Renamed" });
      expect(await store.getCourse(ORG, "c1")).toMatchObject({ name: "Renamed", data: { v: 2 } });
      expect(ids(await store.listCourses(ORG))).toEqual(["c1", "c2"]);
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putClass(ORG, { ...klass("k1", "c1"), name: "Class renamed" });
      expect((await store.listClasses(ORG, "c1")).map((k) => k.name)).toEqual(["Class renamed"]);
    });

    it("lists oldest first by the instant of createdAt, and by insertion order at equal instants", async () => {
      const store = open();
      await store.putCourse(ORG, course("late", 30));
      await store.putCourse(ORG, course("tie-a", 10));
      await store.putCourse(ORG, course("early", 1));
      await store.putCourse(ORG, course("tie-b", 10));
      // Same instants written differently: text order would put these wrong.
      await store.putCourse(ORG, { ...course("offset"), createdAt: "2025-01-01T10:20:00+01:00" }); // 09:20Z
      await store.putCourse(ORG, { ...course("no-millis"), createdAt: "2025-01-01T09:05:00Z" });
      expect(ids(await store.listCourses(ORG))).toEqual(["early", "no-millis", "tie-a", "tie-b", "offset", "late"]);
      expect((await store.getCourse(ORG, "offset"))?.createdAt).toBe("2025-01-01T10:20:00+01:00");
    });

    it("scopes lists: classes by course, assessments by class, each oldest first", async () => {
      const store = open();
      await store.putCourse(ORG, course("c1"));
      await store.putCourse(ORG, course("c2"));
      await store.putClass(ORG, klass("k2", "c1", 20));
      await store.putClass(ORG, klass("k1", "c1", 10));
      await store.putClass(ORG, klass("kx", "c2", 0));
      await store.putAssessment(ORG, exam("e2", "k1", "c1", 20));
      await store.putAssessment(ORG, exam("e1", "k1", "c1", 10));
      await store.putAssessment(ORG, exam("ex", "k2", "c1", 0));
      expect(ids(await store.listClasses(ORG, "c1"))).toEqual(["k1", "k2"]);
      expect(ids(await store.listClasses(ORG, "c2"))).toEqual(["kx"]);
      expect(ids(await store.listAssessments(ORG, "k1"))).toEqual(["e1", "e2"]);
      expect(ids(await store.listAssessments(ORG, "k2"))).toEqual(["ex"]);
    });

    it("denormalises courseId from the class when an assessment is put without one", async () => {
      const store = open();
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putAssessment(ORG, exam("e1", "k1", undefined));
      expect((await store.getAssessment(ORG, "e1"))?.courseId).toBe("c1");
      await store.putAssessment(ORG, exam("e2", "unknown-class", undefined));
      const orphan = await store.getAssessment(ORG, "e2");
      expect(orphan).toBeDefined();
      expect(orphan?.courseId).toBeUndefined();
    });

    it("deleteCourse hides the course, its classes and their assessments from gets and lists", async () => {
      const store = open();
      await store.putCourse(ORG, course("c1"));
      await store.putCourse(ORG, course("c2", 1));
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putClass(ORG, klass("k2", "c2"));
      await store.putAssessment(ORG, exam("e1", "k1", "c1"));
      await store.putAssessment(ORG, exam("e2", "k2", "c2"));
      // Stored before its class, so it has no courseId: the cascade must go through the class.
      await store.putAssessment(ORG, exam("e3", "k3", undefined));
      await store.putClass(ORG, klass("k3", "c1"));

      await store.deleteCourse(ORG, "c1");
      await store.deleteCourse(ORG, "c1"); // twice is fine

      expect(await store.getCourse(ORG, "c1")).toBeUndefined();
      expect(await store.getClass(ORG, "k1")).toBeUndefined();
      expect(await store.getClass(ORG, "k3")).toBeUndefined();
      expect(await store.getAssessment(ORG, "e1")).toBeUndefined();
      expect(await store.getAssessment(ORG, "e3")).toBeUndefined();
      expect(ids(await store.listCourses(ORG))).toEqual(["c2"]);
      expect(await store.listClasses(ORG, "c1")).toEqual([]);
      expect(await store.listAssessments(ORG, "k1")).toEqual([]);
      expect(await store.listAssessments(ORG, "k3")).toEqual([]);
      // Another course is untouched.
      expect(await store.getClass(ORG, "k2")).toBeDefined();
      expect(ids(await store.listAssessments(ORG, "k2"))).toEqual(["e2"]);
    });

    it("keeps deletion final: records put again, or put later under a deleted course or class, stay gone", async () => {
      const store = open();
      await store.putCourse(ORG, course("c1"));
      await store.putClass(ORG, klass("k1", "c1"));
      await store.deleteCourse(ORG, "c1");
      await store.putCourse(ORG, course("c1")); // a request that raced the DELETE
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putClass(ORG, klass("k2", "c1"));
      await store.putAssessment(ORG, exam("e1", "k1", undefined));
      await store.putAssessment(ORG, exam("e2", "unknown-class", "c1"));
      expect(await store.getCourse(ORG, "c1")).toBeUndefined();
      expect(await store.getClass(ORG, "k1")).toBeUndefined();
      expect(await store.getClass(ORG, "k2")).toBeUndefined();
      expect(await store.getAssessment(ORG, "e1")).toBeUndefined();
      expect(await store.getAssessment(ORG, "e2")).toBeUndefined();
      expect(await store.listCourses(ORG)).toEqual([]);
    });

    it("keeps exam kinds apart: a class lists its oral assessments and its role-plays separately", async () => {
      const store = open();
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putAssessment(ORG, exam("o1", "k1", "c1", 10));
      await store.putAssessment(ORG, exam("r1", "k1", "c1", 5, "roleplay"));
      await store.putAssessment(ORG, { ...exam("o2", "k1", "c1", 20), kind: undefined });
      expect(await store.getAssessment(ORG, "r1")).toEqual(exam("r1", "k1", "c1", 5, "roleplay"));
      // No kind given means an oral assessment, as before role-plays existed.
      expect((await store.getAssessment(ORG, "o2"))?.kind).toBe("oral");
      expect(ids(await store.listAssessments(ORG, "k1"))).toEqual(["o1", "o2"]);
      expect(ids(await store.listAssessments(ORG, "k1", "oral"))).toEqual(["o1", "o2"]);
      expect(ids(await store.listAssessments(ORG, "k1", "roleplay"))).toEqual(["r1"]);
      await expect(store.putAssessment(ORG, { ...exam("x", "k1", "c1"), kind: "video" as ExamKind })).rejects.toThrow(/kind/);
    });

    it("deleteClass hides the class and its exams of both kinds, and nothing else", async () => {
      const store = open();
      await store.putCourse(ORG, course("c1"));
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putClass(ORG, klass("k2", "c1", 1));
      await store.putAssessment(ORG, exam("o1", "k1", "c1"));
      await store.putAssessment(ORG, exam("r1", "k1", "c1", 0, "roleplay"));
      await store.putAssessment(ORG, exam("o2", "k2", "c1"));
      await store.deleteClass(ORG, "k1");
      await store.deleteClass(ORG, "k1"); // twice is fine
      await expect(store.deleteClass(ORG, "nope")).resolves.toBeUndefined();
      expect(await store.getClass(ORG, "k1")).toBeUndefined();
      expect(await store.getAssessment(ORG, "o1")).toBeUndefined();
      expect(await store.getAssessment(ORG, "r1")).toBeUndefined();
      expect(ids(await store.listClasses(ORG, "c1"))).toEqual(["k2"]);
      expect(await store.listAssessments(ORG, "k1", "roleplay")).toEqual([]);
      expect(await store.getCourse(ORG, "c1")).toBeDefined();
      expect(ids(await store.listAssessments(ORG, "k2"))).toEqual(["o2"]);
      // Seen again in a platform list (a sync racing the DELETE): still gone.
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putAssessment(ORG, exam("o3", "k1", undefined));
      expect(await store.getClass(ORG, "k1")).toBeUndefined();
      expect(await store.getAssessment(ORG, "o3")).toBeUndefined();
    });

    it("deleteAssessment hides one exam of either kind for good, and leaves its class and siblings", async () => {
      const store = open();
      await store.putClass(ORG, klass("k1", "c1"));
      await store.putAssessment(ORG, exam("o1", "k1", "c1"));
      await store.putAssessment(ORG, exam("o2", "k1", "c1", 1));
      await store.putAssessment(ORG, exam("r1", "k1", "c1", 0, "roleplay"));
      await store.deleteAssessment(ORG, "o1");
      await store.deleteAssessment(ORG, "r1");
      await store.deleteAssessment(ORG, "o1");
      await expect(store.deleteAssessment(ORG, "nope")).resolves.toBeUndefined();
      expect(await store.getAssessment(ORG, "o1")).toBeUndefined();
      expect(await store.getAssessment(ORG, "r1")).toBeUndefined();
      expect(ids(await store.listAssessments(ORG, "k1"))).toEqual(["o2"]);
      expect(await store.listAssessments(ORG, "k1", "roleplay")).toEqual([]);
      expect(await store.getClass(ORG, "k1")).toBeDefined();
      await store.putAssessment(ORG, exam("o1", "k1", "c1"));
      expect(await store.getAssessment(ORG, "o1")).toBeUndefined();
    });

    it("returns copies: changing a record it gave back does not change what it holds", async () => {
      const store = open();
      await store.putCourse(ORG, course("c1", 0, { tags: ["a"] }));
      const got = await store.getCourse(ORG, "c1");
      (got?.data.tags as string[]).push("b");
      const [listed] = await store.listCourses(ORG);
      if (listed) listed.name = "changed";
      expect(await store.getCourse(ORG, "c1")).toEqual(course("c1", 0, { tags: ["a"] }));
    });

    it("stores data as JSON: undefined fields are dropped, dates become ISO strings", async () => {
      const store = open();
      const when = new Date(Date.UTC(2025, 5, 1));
      await store.putCourse(ORG, { ...course("c1"), data: { gone: undefined, when, kept: 1 } });
      expect((await store.getCourse(ORG, "c1"))?.data).toEqual({ when: when.toISOString(), kept: 1 });
    });

    it("rejects a malformed record with a TypeError naming every bad field", async () => {
      const store = open();
      const bad = { id: "", name: "x", data: [], createdAt: "yesterday" } as unknown as CourseRecord;
      const error = await store.putCourse(ORG, bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).toMatch(/id.*data.*createdAt/);
      await expect(store.putClass(ORG, { ...klass("k1", "c1"), courseId: "" })).rejects.toThrow(/courseId/);
    });

    it("makes init() idempotent and safe to call concurrently, and optional before first use", async () => {
      const lazy = open();
      await lazy.putCourse(ORG, course("c1"));
      expect(await lazy.getCourse(ORG, "c1")).toBeDefined();

      const store = open();
      await Promise.all([store.init(), store.init(), store.init(), store.listCourses(ORG)]);
      await store.init();
      await store.putCourse(ORG, course("c2"));
      await store.init();
      expect(ids(await store.listCourses(ORG))).toEqual(["c2"]);
    });

    it("keeps every write of many concurrent puts", async () => {
      const store = open();
      await store.putCourse(ORG, course("c1"));
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.putClass(ORG, klass(`k${i}`, "c1", i))));
      expect(ids(await store.listClasses(ORG, "c1"))).toEqual(Array.from({ length: 40 }, (_, i) => `k${i}`));
    });

    it("closes idempotently and refuses work afterwards", async () => {
      const store = open();
      await store.init();
      await Promise.all([store.close(), store.close()]);
      await store.close();
      await expect(store.getCourse(ORG, "c1")).rejects.toThrow(/closed/);
      const never = open();
      await never.close(); // closing a store that never opened is fine too
    });

    describe("idempotency records", () => {
      const key = (k: string, user = "u1") => ({ org: ORG, user, key: k });

      it("claims a new key once, then answers pending, then replays the recorded answer", async () => {
        const store = open();
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "new" });
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "pending" });
        const body = { data: { _id: "c1", name: "Prüfung ✓", nested: [1, null, { a: true }] } };
        await store.completeIdempotent({ ...key("k1"), status: 201, body });
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "done", status: 201, body });
        // A second complete (a confused caller) does not overwrite the first answer.
        await store.completeIdempotent({ ...key("k1"), status: 500, body: { other: true } });
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "done", status: 201, body });
      });

      it("answers mismatch for the same key with another body, pending or done", async () => {
        const store = open();
        await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" });
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "mismatch" });
        await store.completeIdempotent({ ...key("k1"), status: 422, body: { title: "x" } });
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "mismatch" });
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toMatchObject({ state: "done", status: 422 });
      });

      it("scopes keys by user: another user's same key is a new key", async () => {
        const store = open();
        expect(await store.beginIdempotent({ ...key("k1", "alice"), bodyHash: "h" })).toEqual({ state: "new" });
        expect(await store.beginIdempotent({ ...key("k1", "bob"), bodyHash: "other" })).toEqual({ state: "new" });
        await store.completeIdempotent({ ...key("k1", "alice"), status: 201, body: { who: "alice" } });
        expect(await store.beginIdempotent({ ...key("k1", "bob"), bodyHash: "other" })).toEqual({ state: "pending" });
        expect(await store.beginIdempotent({ ...key("k1", "alice"), bodyHash: "h" })).toEqual({ state: "done", status: 201, body: { who: "alice" } });
      });

      it("abandon frees a pending key for a retry, but never erases a recorded answer", async () => {
        const store = open();
        await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" });
        await store.abandonIdempotent(key("k1"));
        // Free again, even for another body: nothing was recorded.
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "new" });
        await store.completeIdempotent({ ...key("k1"), status: 201, body: null });
        await store.abandonIdempotent(key("k1"));
        expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "done", status: 201, body: null });
        await expect(store.abandonIdempotent(key("never"))).resolves.toBeUndefined();
        await expect(store.completeIdempotent({ ...key("never"), status: 201, body: {} })).resolves.toBeUndefined();
      });

      it("expires records 24 h after the first call began, and takes over a pending claim of a dead call", async () => {
        const store = open();
        const t0 = Date.UTC(2026, 0, 1);
        await store.beginIdempotent({ ...key("done"), bodyHash: "h", now: t0 });
        await store.completeIdempotent({ ...key("done"), status: 201, body: { v: 1 } });
        await store.beginIdempotent({ ...key("stuck"), bodyHash: "h", now: t0 });
        // Just before the limits: still there.
        expect(await store.beginIdempotent({ ...key("stuck"), bodyHash: "h", now: t0 + IDEMPOTENCY_PENDING_MS - 1 })).toEqual({ state: "pending" });
        expect(await store.beginIdempotent({ ...key("done"), bodyHash: "h", now: t0 + IDEMPOTENCY_TTL_MS - 1 })).toMatchObject({ state: "done" });
        // Past them: a pending claim is taken over, a recorded answer is forgotten.
        expect(await store.beginIdempotent({ ...key("stuck"), bodyHash: "h", now: t0 + IDEMPOTENCY_PENDING_MS + 1 })).toEqual({ state: "new" });
        expect(await store.beginIdempotent({ ...key("done"), bodyHash: "other", now: t0 + IDEMPOTENCY_TTL_MS + 1 })).toEqual({ state: "new" });
      });

      it("rejects a malformed key with a TypeError naming the field", async () => {
        const store = open();
        await expect(store.beginIdempotent({ org: ORG, user: "", key: "k", bodyHash: "h" })).rejects.toThrow(/user/);
        await expect(store.beginIdempotent({ org: ORG, user: "u", key: "k", bodyHash: "" })).rejects.toThrow(TypeError);
        await expect(store.completeIdempotent({ org: ORG, user: "u", key: "k", status: 2000, body: {} })).rejects.toThrow(/status/);
      });

      it("gives exactly one of many concurrent duplicates the key (the race overlaps), and the others its answer", async () => {
        // Several store objects on one place when the backend is persistent (processes or
        // instances sharing a database); one store otherwise.
        const where = place();
        const stores = options.persistent ? [open(where), open(where), open(where)] : [open(where)];
        await Promise.all(stores.map((s) => s.init()));
        const callers = 24;
        let started = 0;
        let settled = 0;
        let startedWhenFirstSettled = -1;
        const attempt = async (i: number): Promise<IdempotencyBegin> => {
          const store = stores[i % stores.length] as OralStore;
          started += 1;
          const first = await store.beginIdempotent({ ...key("race"), bodyHash: "h" });
          if (settled++ === 0) startedWhenFirstSettled = started;
          return first;
        };
        const firsts = await Promise.all(Array.from({ length: callers }, (_, i) => attempt(i)));
        // The race happened: every caller had begun before the first one had its answer.
        expect(startedWhenFirstSettled).toBe(callers);
        expect(firsts.filter((f) => f.state === "new")).toHaveLength(1);
        expect(firsts.filter((f) => f.state === "pending")).toHaveLength(callers - 1);

        // The winner records its answer; every loser, on any store, now replays it.
        await stores[0]?.completeIdempotent({ ...key("race"), status: 201, body: { data: { _id: "x1" } } });
        const replays = await Promise.all(stores.map((s) => s.beginIdempotent({ ...key("race"), bodyHash: "h" })));
        for (const r of replays) expect(r).toEqual({ state: "done", status: 201, body: { data: { _id: "x1" } } });
      });
    });

    // Only a persistent store has a place to reopen or share; for the memory store these
    // are not registered at all, so a "skipped" in the summary always means a missing service.
    if (options.persistent) {
      it("survives a reopen: a new store on the same place reads what the first wrote", async () => {
        const where = place();
        const first = open(where);
        await first.putCourse(ORG, course("c1", 0, { kept: true }));
        await first.putCourse(ORG, course("c2", 1));
        await first.putClass(ORG, klass("k1", "c1"));
        await first.putAssessment(ORG, exam("e1", "k1", undefined));
        await first.putClass(ORG, klass("k2", "c2"));
        await first.deleteCourse(ORG, "c2");
        await first.close();

        const second = open(where);
        expect(await second.getCourse(ORG, "c1")).toEqual(course("c1", 0, { kept: true }));
        expect(ids(await second.listClasses(ORG, "c1"))).toEqual(["k1"]);
        expect(await second.getAssessment(ORG, "e1")).toEqual(exam("e1", "k1", "c1"));
        expect(ids(await second.listCourses(ORG))).toEqual(["c1"]);
        expect(await second.getClass(ORG, "k2")).toBeUndefined();
      });

      it("shares records between two stores open on the same place at once", async () => {
        const where = place();
        const a = open(where);
        const b = open(where);
        await Promise.all([a.init(), b.init()]);
        await a.putCourse(ORG, course("c1"));
        await b.putClass(ORG, klass("k1", "c1"));
        expect(ids(await b.listCourses(ORG))).toEqual(["c1"]);
        expect(ids(await a.listClasses(ORG, "c1"))).toEqual(["k1"]);
        await b.deleteCourse(ORG, "c1");
        expect(await a.getClass(ORG, "k1")).toBeUndefined();
      });
    }
  });
}
