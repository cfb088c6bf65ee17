/**
 * The scoping half of the OralStore contract: a record or idempotency key written under
 * organization A is invisible, untouchable and independent under B, for every stateful
 * method. Run by `describeStoreContract`, so against every backend.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_ORGANIZATION, IDEMPOTENCY_PENDING_MS, type AssessmentRecord, type ClassRecord, type CourseRecord, type ExamKind, type OralStore,
} from "../../src/store/types.js";

export interface RecordMakers {
  course(id: string, minute?: number, data?: Record<string, unknown>): CourseRecord;
  klass(id: string, courseId: string, minute?: number): ClassRecord;
  exam(id: string, classId: string, courseId: string | undefined, minute?: number, kind?: ExamKind): AssessmentRecord;
  ids(records: { id: string }[]): string[];
}

const A = "north";
const B = "south";

export function describeScopingContract(open: () => OralStore, { course, klass, exam, ids }: RecordMakers): void {
  describe("scoping by organization", () => {
    /** A course, a class and an exam of each kind, all under `org`. */
    const seed = async (store: OralStore, org: string, suffix = "") => {
      await store.putCourse(org, { ...course("c1"), name: `Course${suffix}` });
      await store.putClass(org, { ...klass("k1", "c1"), name: `Class${suffix}` });
      await store.putAssessment(org, { ...exam("o1", "k1", "c1"), name: `Oral${suffix}` });
      await store.putAssessment(org, { ...exam("r1", "k1", "c1", 0, "roleplay"), name: `Roleplay${suffix}` });
    };

    it("hides A's records from every get and list under B", async () => {
      const store = open();
      await seed(store, A);
      expect(await store.getCourse(B, "c1")).toBeUndefined();
      expect(await store.getClass(B, "k1")).toBeUndefined();
      expect(await store.getAssessment(B, "o1")).toBeUndefined();
      expect(await store.getAssessment(B, "r1")).toBeUndefined();
      expect(await store.listCourses(B)).toEqual([]);
      expect(await store.listClasses(B, "c1")).toEqual([]);
      expect(await store.listAssessments(B, "k1")).toEqual([]);
      expect(await store.listAssessments(B, "k1", "roleplay")).toEqual([]);
      // Nor under the default organization: it is one organization like the others, not a view of all.
      expect(await store.listCourses(DEFAULT_ORGANIZATION)).toEqual([]);
      expect(await store.getAssessment(DEFAULT_ORGANIZATION, "o1")).toBeUndefined();
      expect(await store.getAssessment(A, "o1")).toMatchObject({ id: "o1", classId: "k1", courseId: "c1" });
    });

    it("keeps the same id in A and B as two records: each put, get, list and replace sees only its own", async () => {
      const store = open();
      await seed(store, A, " of A");
      await seed(store, B, " of B");
      await store.putCourse(A, course("only-a", 5));
      await store.putClass(B, klass("only-b", "c1", 5));
      expect((await store.getCourse(A, "c1"))?.name).toBe("Course of A");
      expect((await store.getCourse(B, "c1"))?.name).toBe("Course of B");
      expect((await store.getClass(B, "k1"))?.name).toBe("Class of B");
      expect((await store.getAssessment(A, "r1"))?.name).toBe("Roleplay of A");
      expect(ids(await store.listCourses(A))).toEqual(["c1", "only-a"]);
      expect(ids(await store.listCourses(B))).toEqual(["c1"]);
      expect(ids(await store.listClasses(A, "c1"))).toEqual(["k1"]);
      expect(ids(await store.listClasses(B, "c1"))).toEqual(["k1", "only-b"]);
      expect((await store.listAssessments(A, "k1")).map((e) => e.name)).toEqual(["Oral of A"]);
      expect((await store.listAssessments(B, "k1", "roleplay")).map((e) => e.name)).toEqual(["Roleplay of B"]);
      await store.putCourse(B, { ...course("c1"), name: "Renamed in B" });
      expect((await store.getCourse(A, "c1"))?.name).toBe("Course of A");
    });

    it("deletes under B leave A's records, and cascade only within B", async () => {
      const store = open();
      await seed(store, A);
      // Ids B does not have: nothing of A's moves.
      await store.deleteAssessment(B, "o1");
      await store.deleteClass(B, "k1");
      await store.deleteCourse(B, "c1");
      expect(await store.getCourse(A, "c1")).toBeDefined();
      expect(await store.getClass(A, "k1")).toBeDefined();
      expect(ids(await store.listAssessments(A, "k1"))).toEqual(["o1"]);
      expect(ids(await store.listAssessments(A, "k1", "roleplay"))).toEqual(["r1"]);
      // Ids both have: B's go, with their children; A's stay.
      await seed(store, B);
      await store.deleteCourse(B, "c1");
      expect(await store.getClass(B, "k1")).toBeUndefined();
      expect(await store.getAssessment(B, "o1")).toBeUndefined();
      expect(ids(await store.listClasses(A, "c1"))).toEqual(["k1"]);
      expect(await store.getAssessment(A, "r1")).toBeDefined();
      await store.deleteClass(A, "k1");
      expect(await store.getAssessment(A, "o1")).toBeUndefined();
      expect(await store.getCourse(A, "c1")).toBeDefined();
    });

    it("takes parents only from the same organization: deletion and courseId never leak across", async () => {
      const store = open();
      await store.putCourse(A, course("c1"));
      await store.putClass(A, klass("k1", "c1"));
      await store.deleteCourse(A, "c1");
      // B's course c1 and its children are alive, though A's c1 is deleted for good.
      await store.putCourse(B, course("c1"));
      await store.putClass(B, klass("k2", "c1"));
      await store.putAssessment(B, exam("e1", "k2", undefined));
      expect(await store.getCourse(B, "c1")).toBeDefined();
      expect(await store.getClass(B, "k2")).toBeDefined();
      expect((await store.getAssessment(B, "e1"))?.courseId).toBe("c1");
      // An exam put in B under a class only A knows: no courseId borrowed from A, not born gone.
      await store.putClass(A, klass("k9", "c9"));
      await store.putAssessment(B, exam("e2", "k9", undefined));
      const orphan = await store.getAssessment(B, "e2");
      expect(orphan).toBeDefined();
      expect(orphan?.courseId).toBeUndefined();
    });

    it("keeps the same idempotency key (and user) in A and B as two independent keys", async () => {
      const store = open();
      const key = (org: string) => ({ org, user: "u1", key: "same" });
      expect(await store.beginIdempotent({ ...key(A), bodyHash: "h-a" })).toEqual({ state: "new" });
      // Another request under B is a new key there, not a mismatch with A's.
      expect(await store.beginIdempotent({ ...key(B), bodyHash: "h-b" })).toEqual({ state: "new" });
      await store.completeIdempotent({ ...key(A), status: 201, body: { from: "A" } });
      expect(await store.beginIdempotent({ ...key(B), bodyHash: "h-b" })).toEqual({ state: "pending" });
      // Abandoning B's claim leaves A's answer; completing B's records B's own.
      await store.abandonIdempotent(key(B));
      expect(await store.beginIdempotent({ ...key(A), bodyHash: "h-a" })).toEqual({ state: "done", status: 201, body: { from: "A" } });
      expect(await store.beginIdempotent({ ...key(B), bodyHash: "h-b" })).toEqual({ state: "new" });
      await store.completeIdempotent({ ...key(B), status: 422, body: { from: "B" } });
      expect(await store.beginIdempotent({ ...key(B), bodyHash: "h-b" })).toEqual({ state: "done", status: 422, body: { from: "B" } });
      expect(await store.beginIdempotent({ ...key(A), bodyHash: "h-a" })).toEqual({ state: "done", status: 201, body: { from: "A" } });
      // A completion or an abandon under B never touches A's pending claim.
      expect(await store.beginIdempotent({ org: A, user: "u1", key: "other", bodyHash: "h" })).toEqual({ state: "new" });
      await store.completeIdempotent({ org: B, user: "u1", key: "other", status: 201, body: {} });
      await store.abandonIdempotent({ org: B, user: "u1", key: "other" });
      expect(await store.beginIdempotent({ org: A, user: "u1", key: "other", bodyHash: "h" })).toEqual({ state: "pending" });
    });

    it("cascades a course's deletion through B's own classes only, never through A's class of the same id", async () => {
      const store = open();
      // In A, class k1 belongs to course c1; in B, class k1 belongs to course c2.
      await store.putCourse(A, course("c1"));
      await store.putClass(A, klass("k1", "c1"));
      await store.putCourse(B, course("c1"));
      await store.putCourse(B, course("c2"));
      await store.putClass(B, klass("k1", "c2"));
      await store.putAssessment(B, exam("e1", "k1", undefined));
      expect((await store.getAssessment(B, "e1"))?.courseId).toBe("c2");
      await store.deleteCourse(B, "c1");
      expect(await store.getCourse(B, "c1")).toBeUndefined();
      expect(await store.getClass(B, "k1")).toBeDefined();
      expect(ids(await store.listAssessments(B, "k1"))).toEqual(["e1"]);
      expect(await store.getClass(A, "k1")).toBeDefined();
    });

    it("an exam put in B naming a course only A has (deleted there) is alive in B, not born gone", async () => {
      const store = open();
      await store.putCourse(A, course("c7"));
      await store.putClass(A, klass("k7", "c7"));
      await store.deleteCourse(A, "c7");
      // B knows neither the class nor the course: the caller names both.
      await store.putAssessment(B, exam("e7", "k7", "c7"));
      expect(await store.getAssessment(B, "e7")).toMatchObject({ id: "e7", classId: "k7", courseId: "c7" });
      expect(ids(await store.listAssessments(B, "k7"))).toEqual(["e7"]);
    });

    it("a stale claim in A is taken over only by A: B's call with the same user and key leaves it, and its late answer", async () => {
      const store = open();
      const t0 = Date.UTC(2026, 0, 1);
      const key = (org: string) => ({ org, user: "u1", key: "slow" });
      expect(await store.beginIdempotent({ ...key(A), bodyHash: "h", now: t0 })).toEqual({ state: "new" });
      // Past the pending limit, B's call under the same user and key is B's own.
      expect(await store.beginIdempotent({ ...key(B), bodyHash: "h", now: t0 + IDEMPOTENCY_PENDING_MS + 1 })).toEqual({ state: "new" });
      // A's slow call finishes: its answer is recorded, and A's retry replays it.
      await store.completeIdempotent({ ...key(A), status: 201, body: { from: "A" } });
      expect(await store.beginIdempotent({ ...key(A), bodyHash: "h", now: t0 + IDEMPOTENCY_PENDING_MS + 2 })).toEqual({ state: "done", status: 201, body: { from: "A" } });
    });

    it("refuses a missing or malformed organization with a TypeError, never falling back to one", async () => {
      const store = open();
      await store.putCourse(DEFAULT_ORGANIZATION, course("c1"));
      for (const bad of [undefined, "", "has space", "x".repeat(65), "a/b"] as unknown as string[]) {
        await expect(store.getCourse(bad, "c1"), String(bad)).rejects.toThrow(TypeError);
        await expect(store.listCourses(bad)).rejects.toThrow(/org/);
        await expect(store.listClasses(bad, "c1")).rejects.toThrow(TypeError);
        await expect(store.listAssessments(bad, "k1")).rejects.toThrow(TypeError);
        await expect(store.getClass(bad, "k1")).rejects.toThrow(TypeError);
        await expect(store.getAssessment(bad, "e1")).rejects.toThrow(TypeError);
        await expect(store.putCourse(bad, course("c2"))).rejects.toThrow(/org/);
        await expect(store.putClass(bad, klass("k1", "c1"))).rejects.toThrow(TypeError);
        await expect(store.putAssessment(bad, exam("e1", "k1", "c1"))).rejects.toThrow(TypeError);
        await expect(store.deleteCourse(bad, "c1")).rejects.toThrow(TypeError);
        await expect(store.deleteClass(bad, "k1")).rejects.toThrow(TypeError);
        await expect(store.deleteAssessment(bad, "e1")).rejects.toThrow(TypeError);
        await expect(store.beginIdempotent({ org: bad, user: "u", key: "k", bodyHash: "h" })).rejects.toThrow(/org/);
        await expect(store.completeIdempotent({ org: bad, user: "u", key: "k", status: 201, body: {} })).rejects.toThrow(TypeError);
        await expect(store.abandonIdempotent({ org: bad, user: "u", key: "k" })).rejects.toThrow(TypeError);
      }
      expect(ids(await store.listCourses(DEFAULT_ORGANIZATION))).toEqual(["c1"]);
    });
  });
}
