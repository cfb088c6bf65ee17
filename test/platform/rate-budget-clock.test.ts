/**
 * The rate budget's bookkeeping on a clock the test moves by hand (`createRateBudget({ now })`):
 * no sleeping, no wall-clock bounds. "Pending" is checked by racing the acquire against a
 * short timer: a granted call resolves within a microtask, a blocked one never does.
 */
import { describe, expect, it } from "vitest";
import { createRateBudget, type RateBudget } from "../../src/platform/index.js";
import { createFallbackRateBudget } from "../../src/platform/rate-budget.js";

function clocked(options: { limit: number; windowMs?: number; maxConcurrency?: number }) {
  const clock = { t: 1_000_000 };
  const budget = createRateBudget({ ...options, now: () => clock.t });
  return { clock, budget };
}

async function granted(p: Promise<unknown>): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30))]);
}

const acquire = (b: RateBudget) => b.acquire("normal");

describe("rate budget bookkeeping", () => {
  it("corrects the platform's Remaining for our other calls still in flight", async () => {
    const { clock, budget } = clocked({ limit: 10 });
    await Promise.all([acquire(budget), acquire(budget), acquire(budget)]);
    // One of the three answered: the platform counted it, not the two still in flight.
    budget.observe({ remaining: 5, resetAt: clock.t + 30_000 });
    expect(budget.stats().serverRemaining).toBe(3);
  });

  it("clamps a Reset far in the future to one window (+1 s), instead of waiting on it", async () => {
    const { clock, budget } = clocked({ limit: 10, windowMs: 60_000 });
    const start = clock.t;
    budget.observe({ remaining: 0, resetAt: start + 10 * 3600_000 });
    clock.t = start + 60_500;
    const early = acquire(budget);
    expect(await granted(early)).toBe(false);
    clock.t = start + 61_001;
    const late = acquire(budget);
    expect(await granted(late)).toBe(true);
    expect(await granted(early)).toBe(true);
    expect(budget.stats().serverRemaining).toBeUndefined();
  });

  it("counts a call once when its release is called twice", async () => {
    const { budget } = clocked({ limit: 5, maxConcurrency: 1 });
    const release = await acquire(budget);
    release();
    release();
    expect(budget.stats()).toMatchObject({ inFlight: 0, sentInWindow: 1, totalSent: 1 });
    // The concurrency slot was freed once, not twice: two more calls still go one at a time.
    const second = await acquire(budget);
    expect(await granted(acquire(budget))).toBe(false);
    second();
  });

  it("keeps a call in the window when the clock steps back, and frees it one window after its grant", async () => {
    const { clock, budget } = clocked({ limit: 1, windowMs: 60_000 });
    const grantedAt = clock.t;
    const release = await acquire(budget);
    clock.t = grantedAt - 50_000; // NTP stepped the clock back
    release();
    expect(budget.stats().sentInWindow).toBe(1);
    const waiting = acquire(budget);
    expect(await granted(waiting)).toBe(false);
    clock.t = grantedAt + 60_001;
    // A later call makes the budget look again (FIFO): the waiting call goes, the later one waits its turn.
    const later = acquire(budget);
    expect(await granted(waiting)).toBe(true);
    expect(await granted(later)).toBe(false);
  });

  it("counts the window from the response, not the request: a slow answer holds its slot longer", async () => {
    const { clock, budget } = clocked({ limit: 1, windowMs: 1_000 });
    const start = clock.t;
    const release = await acquire(budget);
    clock.t = start + 5_000; // the answer took 5 s
    release();
    clock.t = start + 1_500; // a window after the request, but not after the response
    const tooEarly = acquire(budget);
    expect(await granted(tooEarly)).toBe(false);
    clock.t = start + 6_001;
    const later = acquire(budget);
    expect(await granted(tooEarly)).toBe(true);
    expect(await granted(later)).toBe(false);
  });
});

describe("a fallback budget that takes the window to be full (its shared window went out of reach)", () => {
  it("sends one probe at a time until the platform reports a Remaining, then that share of it", async () => {
    const clock = { t: 1_000_000 };
    const budget = createFallbackRateBudget({ limit: 10, windowMs: 60_000, now: () => clock.t, platformShare: 0.5 });
    budget.assumeFull();
    const probe = await acquire(budget);
    const second = acquire(budget);
    expect(await granted(second)).toBe(false);
    // The probe's answer: 6 left on the platform, half of them this instance's.
    budget.observe({ limit: 10, remaining: 6, resetAt: clock.t + 30_000 }, probe);
    probe();
    expect(await granted(second)).toBe(true);
    const more = [await acquire(budget), await acquire(budget)];
    expect(await granted(acquire(budget))).toBe(false);
    [await second, ...more].forEach((r) => r());
  });
});
