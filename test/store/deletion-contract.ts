/**
 * The OralStore contract's deletions: deleting a course, a class or an exam hides it and
 * everything under it from gets and lists, for good (a record put again later stays
 * gone), and nothing else. Run by `describeStoreContract`, so against every backend.
 */
import { expect, it } from "vitest";
import { course, exam, ids, klass, ORG, type StoreHarness } from "./contract-fixtures.js";

export function describeDeletionContract({ open }: StoreHarness): void {
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
}
