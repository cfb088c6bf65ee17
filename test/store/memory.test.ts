import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { memoryStore } from "../../src/store/memory.js";
import { describeStoreContract } from "./store-contract.js";

// Memory has no "place": every store is its own, so the reopen tests do not apply.
describeStoreContract("memoryStore", () => memoryStore(), { persistent: false });

describe("memoryStore: launch records", () => {
  it("keeps at most maxLaunchRecords per organization, dropping the oldest", async () => {
    const store = memoryStore({ maxLaunchRecords: 3 });
    const launch = (i: number) => ({
      at: new Date(Date.UTC(2026, 0, 1, 9, 0, i)).toISOString(), kind: "oral" as const, examId: "e1", outcome: "redirected", status: 303,
      servedBy: "prepared" as const, via: "link" as const, student: { orgInternalId: `s${i}`, email: `s${i}@x.test` },
    });
    await store.addLaunches("north", [launch(0), launch(1)]);
    await store.addLaunches("north", [launch(2), launch(3), launch(4)]);
    await store.addLaunches("south", [launch(5)]);
    const page = await store.listLaunches("north", { kind: "oral", examId: "e1", limit: 10 });
    expect(page.records.map((r) => r.student.orgInternalId)).toEqual(["s4", "s3", "s2"]);
    expect((await store.listLaunches("south", { kind: "oral", examId: "e1", limit: 10 })).records).toHaveLength(1);
  });

  it("refuses a bound that is not a whole number ≥ 1", () => {
    expect(() => memoryStore({ maxLaunchRecords: 0 })).toThrow(ConfigurationError);
  });
});

describe("memoryStore: maxRecords", () => {
  const course = (i: number) => ({ id: `c${i}`, name: `Course ${i}`, data: {}, createdAt: new Date(Date.UTC(2026, 0, 1, 9, 0, i)).toISOString() });

  it("keeps at most maxRecords per organization: deleted records go first, then the least used, a tenth at a time", async () => {
    const store = memoryStore({ maxRecords: 10 });
    for (let i = 0; i < 10; i++) await store.putCourse("north", course(i));
    await store.deleteCourse("north", "c5");
    await store.putCourse("south", course(0));
    // Read: c0 is used now (an exam being launched), so c1 is the least used.
    expect(await store.getCourse("north", "c0")).toMatchObject({ id: "c0" });
    expect((await store.listCourses("north")).map((c) => c.id)).toEqual(["c0", "c1", "c2", "c3", "c4", "c6", "c7", "c8", "c9"]);
    // The 11th: the deleted one and the least used go (down to 9), the newest stays.
    await store.putCourse("north", course(10));
    expect((await store.listCourses("north")).map((c) => c.id)).toEqual(["c0", "c2", "c3", "c4", "c6", "c7", "c8", "c9", "c10"]);
    expect(await store.getCourse("north", "c1")).toBeUndefined();
    expect(await store.listCourses("south")).toHaveLength(1);
  });

  it("has no limit by default, and refuses a bound below 10", async () => {
    const store = memoryStore();
    for (let i = 0; i < 50; i++) await store.putCourse("north", course(i));
    expect(await store.listCourses("north")).toHaveLength(50);
    expect(() => memoryStore({ maxRecords: 5 })).toThrow(ConfigurationError);
  });
});
