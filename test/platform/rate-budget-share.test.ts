/**
 * A launch storm never keeps instructor ("normal") calls out of the window: up to
 * `normalShare` of it goes to normal calls before waiting launches. On a clock the test
 * moves by hand; "pending" is a race against a short timer (a granted call resolves
 * within a microtask, a blocked one never does).
 */
import { describe, expect, it } from "vitest";
import { createRateBudget, type ReleaseFn } from "../../src/platform/index.js";

async function granted(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30))]);
}

describe("the normal calls' share under a launch storm", () => {
  it("a normal call queued behind 100 launches gets the next free slot, not the slot after the storm", async () => {
    const clock = { t: 1_000_000 };
    const budget = createRateBudget({ limit: 10, windowMs: 60_000, now: () => clock.t, normalShare: 0.2 });
    const first = await Promise.all(Array.from({ length: 10 }, () => budget.acquire("launch")));
    first.forEach((r) => r());
    const storm = Array.from({ length: 100 }, () => budget.acquire("launch"));
    const normal = budget.acquire("normal");
    expect(await granted(normal)).toBe(false);
    clock.t += 60_001; // the first window's calls leave: ten slots free
    // The pump runs on the budget's timer; an observation pumps at once.
    budget.observe({});
    expect(await granted(normal)).toBe(true);
    // Of the ten free slots, the normal call took one; the launches the other nine.
    expect(budget.stats().queued).toEqual({ launch: 91, normal: 0 });
    (await normal)();
    const sent = await Promise.all(storm.slice(0, 9));
    sent.forEach((r) => r());
    expect(await granted(storm[9]!)).toBe(false);
  });

  it("gives normal calls no more than their share while launches wait, and launches the rest", async () => {
    const clock = { t: 1_000_000 };
    const budget = createRateBudget({ limit: 10, windowMs: 60_000, now: () => clock.t, normalShare: 0.2 });
    const first = await Promise.all(Array.from({ length: 10 }, () => budget.acquire("launch")));
    first.forEach((r) => r());
    const order: string[] = [];
    const track = (p: Promise<ReleaseFn>, what: string) => p.then((r) => { order.push(what); r(); });
    const launches = Array.from({ length: 20 }, () => track(budget.acquire("launch"), "launch"));
    const normals = Array.from({ length: 5 }, () => track(budget.acquire("normal"), "normal"));
    clock.t += 60_001;
    budget.observe({});
    await new Promise((r) => setTimeout(r, 30));
    expect(order.filter((o) => o === "normal")).toHaveLength(2); // ⌈0.2 × 10⌉
    expect(order.filter((o) => o === "launch")).toHaveLength(8);
    // The next window: two more normal calls, then the remaining launches.
    clock.t += 60_001;
    budget.observe({});
    await new Promise((r) => setTimeout(r, 30));
    expect(order.filter((o) => o === "normal")).toHaveLength(4);
    expect(order.filter((o) => o === "launch")).toHaveLength(16);
    clock.t += 60_001;
    budget.observe({});
    await Promise.all([...launches, ...normals]);
  });

  it("with no launch waiting, normal calls use the whole window", async () => {
    const clock = { t: 1_000_000 };
    const budget = createRateBudget({ limit: 10, now: () => clock.t });
    const all = await Promise.all(Array.from({ length: 10 }, () => budget.acquire("normal")));
    all.forEach((r) => r());
    expect(budget.stats().sentInWindow).toBe(10);
  });
});
