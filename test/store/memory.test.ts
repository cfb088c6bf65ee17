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

  it("names a misspelt option, as the other stores do", () => {
    const error = (() => {
      try {
        memoryStore({ maxLaunchRecord: 3 } as never);
      } catch (e) {
        return e as ConfigurationError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error!.problems.map((p) => `${p.option}: ${p.message}`)).toEqual(["maxLaunchRecord: is not an option."]);
  });
});
