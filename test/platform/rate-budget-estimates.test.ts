/**
 * The estimates the router reads from the rate budget instead of doing arithmetic on its
 * stats: how long a launch would wait, and how far apart paced calls go. A controlled
 * clock, so the figures are exact and no wall-clock bound is involved.
 */
import { describe, expect, it } from "vitest";
import { createRateBudget } from "../../src/platform/index.js";

function budgetAt(limit: number, windowMs: number) {
  let now = 1_000_000;
  const budget = createRateBudget({ limit, windowMs, maxConcurrency: 100, now: () => now });
  return { budget, advance: (ms: number) => { now += ms; } };
}

describe("RateBudget.estimateWaitMs", () => {
  it("is 0 with room in the window, one window once it is full, and grows with the calls queued ahead", async () => {
    const { budget } = budgetAt(4, 10_000);
    expect(budget.estimateWaitMs(0)).toBe(0);
    const releases = await Promise.all(Array.from({ length: 4 }, () => budget.acquire("launch")));
    releases.forEach((release) => release());
    // The window holds 4 of 4: the next call waits for the first to leave it.
    expect(budget.estimateWaitMs(0)).toBe(10_000);
    // 4 more ahead of it fill a second window.
    expect(budget.estimateWaitMs(4)).toBe(20_000);
  });

  it("adds what remains of a 429 pause", () => {
    const { budget, advance } = budgetAt(10, 10_000);
    budget.pause(1_000_000 + 3_000);
    advance(1_000);
    expect(budget.estimateWaitMs(0)).toBe(2_000);
  });
});

describe("RateBudget.pacingIntervalMs", () => {
  it("spreads a share of the rate evenly, and follows a lower limit the platform reports", () => {
    const { budget } = budgetAt(600, 60_000);
    expect(budget.pacingIntervalMs(1)).toBe(100);
    expect(budget.pacingIntervalMs(0.5)).toBe(200);
    budget.observe({ limit: 60 });
    expect(budget.pacingIntervalMs(0.5)).toBe(2_000);
  });
});
