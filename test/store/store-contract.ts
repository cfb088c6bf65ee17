/**
 * The behaviours every OralStore promises, run against each backend. A backend passes
 * this or it does not ship: the router is written against these promises, not against
 * any one database.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AssessmentRecord, ClassRecord, CourseRecord, OralStore } from "../../src/store/types.js";

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
    const exam = (id: string, classId: string, courseId: string | undefined, minute = 0): AssessmentRecord =>
      ({ id, classId, courseId, name: `Exam ${id}`, data: { _id: id, classId }, createdAt: at(minute) });
    const ids = (records: { id: string }[]) => records.map((r) => r.id);

    it("gives back what was put, with unknown fields of data kept", async () => {
      const store = open();
      await store.init();
      const data = { _id: "c1", futureField: { nested: [1, "two", null, true] }, unicode: "Prüfung — 口試 ✓", n: 1.5 };
      await store.putCourse(course("c1", 0, data));
      await store.putClass(klass("k1", "c1"));
      await store.putAssessment(exam("e1", "k1", "c1"));
      expect(await store.getCourse("c1")).toEqual({ id: "c1", name: "Course c1", data, createdAt: at(0) });
      expect(await store.getClass("k1")).toEqual(klass("k1", "c1"));
      expect(await store.getAssessment("e1")).toEqual(exam("e1", "k1", "c1"));
      expect((await store.getCourse("c1"))?.createdAt).toBe("2025-01-01T09:00:00.000Z");
    });

    it("answers undefined (not an error) for ids it does not know", async () => {
      const store = open();
      expect(await store.getCourse("nope")).toBeUndefined();
      expect(await store.getClass("nope")).toBeUndefined();
      expect(await store.getAssessment("nope")).toBeUndefined();
      expect(await store.listClasses("nope")).toEqual([]);
      expect(await store.listAssessments("nope")).toEqual([]);
      await expect(store.deleteCourse("nope")).resolves.toBeUndefined();
    });

    it("replaces a record put again with the same id, keeping one copy in its list", async () => {
      const store = open();
      await store.putCourse(course("c1", 0, { v: 1 }));
      await store.putCourse(course("c2", 5));
      await store.putCourse({ ...course("c1", 0, { v: 2 }), name: "Renamed" });
      expect(await store.getCourse("c1")).toMatchObject({ name: "Renamed", data: { v: 2 } });
      expect(ids(await store.listCourses())).toEqual(["c1", "c2"]);
      await store.putClass(klass("k1", "c1"));
      await store.putClass({ ...klass("k1", "c1"), name: "Class renamed" });
      expect((await store.listClasses("c1")).map((k) => k.name)).toEqual(["Class renamed"]);
    });

    it("lists oldest first by the instant of createdAt, and by insertion order at equal instants", async () => {
      const store = open();
      await store.putCourse(course("late", 30));
      await store.putCourse(course("tie-a", 10));
      await store.putCourse(course("early", 1));
      await store.putCourse(course("tie-b", 10));
      // Same instants written differently: text order would put these wrong.
      await store.putCourse({ ...course("offset"), createdAt: "2025-01-01T10:20:00+01:00" }); // 09:20Z
      await store.putCourse({ ...course("no-millis"), createdAt: "2025-01-01T09:05:00Z" });
      expect(ids(await store.listCourses())).toEqual(["early", "no-millis", "tie-a", "tie-b", "offset", "late"]);
      expect((await store.getCourse("offset"))?.createdAt).toBe("2025-01-01T10:20:00+01:00");
    });

    it("scopes lists: classes by course, assessments by class, each oldest first", async () => {
      const store = open();
      await store.putCourse(course("c1"));
      await store.putCourse(course("c2"));
      await store.putClass(klass("k2", "c1", 20));
      await store.putClass(klass("k1", "c1", 10));
      await store.putClass(klass("kx", "c2", 0));
      await store.putAssessment(exam("e2", "k1", "c1", 20));
      await store.putAssessment(exam("e1", "k1", "c1", 10));
      await store.putAssessment(exam("ex", "k2", "c1", 0));
      expect(ids(await store.listClasses("c1"))).toEqual(["k1", "k2"]);
      expect(ids(await store.listClasses("c2"))).toEqual(["kx"]);
      expect(ids(await store.listAssessments("k1"))).toEqual(["e1", "e2"]);
      expect(ids(await store.listAssessments("k2"))).toEqual(["ex"]);
    });

    it("denormalises courseId from the class when an assessment is put without one", async () => {
      const store = open();
      await store.putClass(klass("k1", "c1"));
      await store.putAssessment(exam("e1", "k1", undefined));
      expect((await store.getAssessment("e1"))?.courseId).toBe("c1");
      await store.putAssessment(exam("e2", "unknown-class", undefined));
      const orphan = await store.getAssessment("e2");
      expect(orphan).toBeDefined();
      expect(orphan?.courseId).toBeUndefined();
    });

    it("deleteCourse hides the course, its classes and their assessments from gets and lists", async () => {
      const store = open();
      await store.putCourse(course("c1"));
      await store.putCourse(course("c2", 1));
      await store.putClass(klass("k1", "c1"));
      await store.putClass(klass("k2", "c2"));
      await store.putAssessment(exam("e1", "k1", "c1"));
      await store.putAssessment(exam("e2", "k2", "c2"));
      // Stored before its class, so it has no courseId: the cascade must go through the class.
      await store.putAssessment(exam("e3", "k3", undefined));
      await store.putClass(klass("k3", "c1"));

      await store.deleteCourse("c1");
      await store.deleteCourse("c1"); // twice is fine

      expect(await store.getCourse("c1")).toBeUndefined();
      expect(await store.getClass("k1")).toBeUndefined();
      expect(await store.getClass("k3")).toBeUndefined();
      expect(await store.getAssessment("e1")).toBeUndefined();
      expect(await store.getAssessment("e3")).toBeUndefined();
      expect(ids(await store.listCourses())).toEqual(["c2"]);
      expect(await store.listClasses("c1")).toEqual([]);
      expect(await store.listAssessments("k1")).toEqual([]);
      expect(await store.listAssessments("k3")).toEqual([]);
      // Another course is untouched.
      expect(await store.getClass("k2")).toBeDefined();
      expect(ids(await store.listAssessments("k2"))).toEqual(["e2"]);
    });

    it("keeps deletion final: records put again, or put later under a deleted course or class, stay gone", async () => {
      const store = open();
      await store.putCourse(course("c1"));
      await store.putClass(klass("k1", "c1"));
      await store.deleteCourse("c1");
      await store.putCourse(course("c1")); // a request that raced the DELETE
      await store.putClass(klass("k1", "c1"));
      await store.putClass(klass("k2", "c1"));
      await store.putAssessment(exam("e1", "k1", undefined));
      await store.putAssessment(exam("e2", "unknown-class", "c1"));
      expect(await store.getCourse("c1")).toBeUndefined();
      expect(await store.getClass("k1")).toBeUndefined();
      expect(await store.getClass("k2")).toBeUndefined();
      expect(await store.getAssessment("e1")).toBeUndefined();
      expect(await store.getAssessment("e2")).toBeUndefined();
      expect(await store.listCourses()).toEqual([]);
    });

    it("returns copies: changing a record it gave back does not change what it holds", async () => {
      const store = open();
      await store.putCourse(course("c1", 0, { tags: ["a"] }));
      const got = await store.getCourse("c1");
      (got?.data.tags as string[]).push("b");
      const [listed] = await store.listCourses();
      if (listed) listed.name = "changed";
      expect(await store.getCourse("c1")).toEqual(course("c1", 0, { tags: ["a"] }));
    });

    it("stores data as JSON: undefined fields are dropped, dates become ISO strings", async () => {
      const store = open();
      const when = new Date(Date.UTC(2025, 5, 1));
      await store.putCourse({ ...course("c1"), data: { gone: undefined, when, kept: 1 } });
      expect((await store.getCourse("c1"))?.data).toEqual({ when: when.toISOString(), kept: 1 });
    });

    it("rejects a malformed record with a TypeError naming every bad field", async () => {
      const store = open();
      const bad = { id: "", name: "x", data: [], createdAt: "yesterday" } as unknown as CourseRecord;
      const error = await store.putCourse(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).toMatch(/id.*data.*createdAt/);
      await expect(store.putClass({ ...klass("k1", "c1"), courseId: "" })).rejects.toThrow(/courseId/);
    });

    it("makes init() idempotent and safe to call concurrently, and optional before first use", async () => {
      const lazy = open();
      await lazy.putCourse(course("c1"));
      expect(await lazy.getCourse("c1")).toBeDefined();

      const store = open();
      await Promise.all([store.init(), store.init(), store.init(), store.listCourses()]);
      await store.init();
      await store.putCourse(course("c2"));
      await store.init();
      expect(ids(await store.listCourses())).toEqual(["c2"]);
    });

    it("keeps every write of many concurrent puts", async () => {
      const store = open();
      await store.putCourse(course("c1"));
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.putClass(klass(`k${i}`, "c1", i))));
      expect(ids(await store.listClasses("c1"))).toEqual(Array.from({ length: 40 }, (_, i) => `k${i}`));
    });

    it("closes idempotently and refuses work afterwards", async () => {
      const store = open();
      await store.init();
      await Promise.all([store.close(), store.close()]);
      await store.close();
      await expect(store.getCourse("c1")).rejects.toThrow(/closed/);
      const never = open();
      await never.close(); // closing a store that never opened is fine too
    });

    it.runIf(options.persistent)("survives a reopen: a new store on the same place reads what the first wrote", async () => {
      const where = place();
      const first = open(where);
      await first.putCourse(course("c1", 0, { kept: true }));
      await first.putCourse(course("c2", 1));
      await first.putClass(klass("k1", "c1"));
      await first.putAssessment(exam("e1", "k1", undefined));
      await first.putClass(klass("k2", "c2"));
      await first.deleteCourse("c2");
      await first.close();

      const second = open(where);
      expect(await second.getCourse("c1")).toEqual(course("c1", 0, { kept: true }));
      expect(ids(await second.listClasses("c1"))).toEqual(["k1"]);
      expect(await second.getAssessment("e1")).toEqual(exam("e1", "k1", "c1"));
      expect(ids(await second.listCourses())).toEqual(["c1"]);
      expect(await second.getClass("k2")).toBeUndefined();
    });

    it.runIf(options.persistent)("shares records between two stores open on the same place at once", async () => {
      const where = place();
      const a = open(where);
      const b = open(where);
      await Promise.all([a.init(), b.init()]);
      await a.putCourse(course("c1"));
      await b.putClass(klass("k1", "c1"));
      expect(ids(await b.listCourses())).toEqual(["c1"]);
      expect(ids(await a.listClasses("c1"))).toEqual(["k1"]);
      await b.deleteCourse("c1");
      expect(await a.getClass("k1")).toBeUndefined();
    });
  });
}
