/** The capacity plan's arithmetic, with the example (docs/lti.md, "Capacity plan"). */
import { describe, expect, it } from "vitest";
import { capacityPlan } from "../../src/lti/shared/capacity-plan.js";

describe("capacityPlan", () => {
  it("10,000 students on one prod key: at most 6,000 ready at once, the last starts about 7 minutes late", () => {
    const plan = capacityPlan({ students: 10_000, ratePerMinute: 600 });
    expect(plan).toMatchObject({ readyAtOnce: 6_000, onDemand: 4_000, lastStartAfterMs: 400_000, prepareLeadMs: 1_200_000, keysNeeded: 2 });
    expect(plan.advice.join(" ")).toMatch(/Stagger.*6,000/);
    expect(plan.advice.join(" ")).toMatch(/2 API keys/);
    expect(plan.advice.join(" ")).toMatch(/Prepare as early as possible/);
  });

  it("a class that fits one dev key: all ready, no advice but when to start preparing", () => {
    const plan = capacityPlan({ students: 300, ratePerMinute: 60 });
    expect(plan).toMatchObject({ readyAtOnce: 300, onDemand: 0, lastStartAfterMs: 0, prepareLeadMs: 600_000, keysNeeded: 1 });
    expect(plan.advice).toEqual(["Preparing takes about 10 min at 50% of the key's rate: prepare at least that long before the start."]);
  });

  it("one student past a dev key's ceiling is signed in on demand", () => {
    expect(capacityPlan({ students: 601, ratePerMinute: 60 })).toMatchObject({ readyAtOnce: 600, onDemand: 1, lastStartAfterMs: 1_000, keysNeeded: 2 });
  });
});
