/**
 * The OralStore contract's life cycle and data handling: copies given back, data stored
 * as JSON, malformed records refused, init() idempotent, concurrent writes kept, close()
 * final; for a persistent backend, records that survive a reopen and are shared by two
 * stores on one place. Run by `describeStoreContract`, so against every backend.
 */
import { expect, it } from "vitest";
import type { CourseRecord } from "../../src/store/types.js";
import { course, exam, ids, klass, ORG, type StoreHarness } from "./contract-fixtures.js";

export function describeLifecycleContract({ open, place, persistent }: StoreHarness): void {
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

  // Only a persistent store has a place to reopen or share; for the memory store these
  // are not registered at all, so a "skipped" in the summary always means a missing service.
  if (persistent) {
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
}
