/**
 * The OralStore contract's records: courses, classes and exams of both kinds are given
 * back as put (unknown data fields kept), replaced by id, listed oldest first and scoped
 * by their parent, with a missing courseId taken from the class. Run by
 * `describeStoreContract`, so against every backend.
 */
import { expect, it } from "vitest";
import type { ExamKind } from "../../src/store/types.js";
import { at, course, exam, ids, klass, ORG, type StoreHarness } from "./contract-fixtures.js";

export function describeRecordsContract({ open }: StoreHarness): void {
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
}
