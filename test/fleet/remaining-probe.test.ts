/**
 * A Remaining that only the calls sent since made 0 (rate-budget-acquire.ts): the shared
 * budget takes off an answer's Remaining every call admitted after the answered one, and
 * in a fleet some of those reached the platform first (an instance's send lag), so the
 * estimate runs low. With nothing in flight no answer corrects it; one call fleet-wide
 * then goes to learn the real Remaining while the shared window has room, and the others
 * look again once it is known. So when calls of ours left the window while the answered
 * call was out (the platform's count of them in its Remaining is unknown). A Remaining the
 * platform itself gave as 0, with none of ours gone since, still holds every call until one
 * of ours leaves the window.
 *
 * Both on a 3 s window, so the bounds keep a second to spare either way: held, a call
 * waits about a window after the first answer; probing, it goes at once.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import type { SharedBudget } from "../../src/fleet/fleet.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { sleep } from "./contracts/pair.js";

const available = await redisOrSkip("the shared budget's Remaining probe");
const WINDOW_MS = 3000;
const prefix = randomPrefix("probe");
const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });
afterAll(() => dropPrefix(prefix));

let keys = 0;
/** Two instances' views of one key's shared budget (limit 10 per 3 s). */
async function pair(): Promise<{ a: SharedBudget; b: SharedBudget }> {
  const make = () => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, rateLimitPerMinute: 10, rateWindowMs: WINDOW_MS, commandTimeoutMs: 3000 });
  const one = make();
  const two = make();
  cleanups.push(() => one.close(), () => two.close());
  await Promise.all([fleetReady(one), fleetReady(two)]);
  const hash = keyHash(`probe-key-${++keys}-${prefix}`);
  return { a: one.rateBudget.forKey(hash), b: two.rateBudget.forKey(hash) };
}

/**
 * Three calls, the first answered with `remaining` (the two sent after it are taken off),
 * then all three answered without a Remaining: nothing in flight, three of ten in the window.
 */
async function afterFirstAnswer(remaining: number) {
  const budgets = await pair();
  const { a, b } = budgets;
  const first = await a.acquire("normal");
  const others = [await b.acquire("normal"), await a.acquire("normal")];
  a.observe({ limit: 10, remaining, resetAt: Date.now() + WINDOW_MS + 1000 }, first);
  first();
  others.forEach((r) => r());
  // Let the observation and the releases reach Redis (one connection per instance answers in order).
  await Promise.all([a, b].map((x) => x.sharedStats()));
  return { ...budgets, answeredAt: Date.now() };
}

describe.runIf(available)("the shared budget's Remaining, lowered by the calls sent since", () => {
  it("the platform said 2 left, the two calls sent since made it 0: one call goes at once to learn the real Remaining, the next once it is known", async () => {
    const { a, b, answeredAt } = await afterFirstAnswer(2);
    const probe = await b.acquire("normal");
    expect(Date.now() - answeredAt).toBeLessThan(WINDOW_MS - 1000);
    // While the probe is out, another call waits for what it learns.
    const next = a.acquire("normal");
    let nextGone = false;
    void next.then(() => { nextGone = true; });
    await sleep(200);
    expect(nextGone).toBe(false);
    b.observe({ limit: 10, remaining: 6, resetAt: Date.now() + WINDOW_MS + 1000 }, probe);
    probe();
    (await next)();
    expect(Date.now() - answeredAt).toBeLessThan(WINDOW_MS - 1000);
  });

  it("the platform said 0 left, but a call of ours left the window while the answered one was out: one call goes at once to learn the real Remaining", async () => {
    const { a, b } = await pair();
    (await a.acquire("normal"))(); // answered at once: it leaves the window in 3 s
    await sleep(WINDOW_MS - 300);
    const out = await b.acquire("normal");
    await sleep(500);
    await a.sharedStats(); // a script runs: the first call leaves the window while `out` is out
    b.observe({ limit: 10, remaining: 0, resetAt: Date.now() + WINDOW_MS + 1000 }, out);
    out();
    await Promise.all([a, b].map((x) => x.sharedStats()));
    const answeredAt = Date.now();
    (await b.acquire("normal"))();
    // Held, it would wait for `out` to leave the window (3 s) or the Reset (4 s).
    expect(Date.now() - answeredAt).toBeLessThan(WINDOW_MS - 1000);
  });

  it("the platform itself said 0 left: no call goes until one of ours leaves the window", async () => {
    const { b, answeredAt } = await afterFirstAnswer(0);
    (await b.acquire("normal"))();
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(WINDOW_MS - 500);
  });
});
