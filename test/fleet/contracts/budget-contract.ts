/**
 * The RateBudget promises, for the in-process and the shared (Redis) budget alike: the
 * window, launch priority, aborts, the 429 pause, shared Remaining. `make(limit)` gives
 * two instances' views of one budget with a 1 s window.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RateBudget, ReleaseFn } from "../../../src/platform/index.js";
import { sleep, type Pair } from "./pair.js";

/** `normalShare`: the budget's share kept for normal calls during a launch storm (its default when left out). */
export function describeBudgetContract(name: string, make: (limit: number, options?: { normalShare?: number }) => Promise<Pair<RateBudget>>): void {
  describe(`${name}: the RateBudget contract`, () => {
    const opened: Pair<RateBudget>[] = [];
    const open = async (limit: number, options?: { normalShare?: number }) => { const p = await make(limit, options); opened.push(p); return p; };
    afterEach(async () => { await Promise.all(opened.splice(0).map((p) => p.close())); });

    it("admits the limit at once across instances and holds the next until a window after an answer", async () => {
      const { a, b } = await open(4);
      const releases = await Promise.all([a, b, a, b].map((x) => x.acquire("normal")));
      const answeredAt = Date.now();
      releases.forEach((r) => r());
      const fifth = await b.acquire("normal");
      const waited = Date.now() - answeredAt;
      fifth();
      expect(waited).toBeGreaterThanOrEqual(800); // a 1 s window, clocks of two sources
      expect(waited).toBeLessThan(5000);
    });

    it("counts a call in flight for as long as it is in flight", async () => {
      const { a, b } = await open(2);
      const slow = await a.acquire("normal");
      const quick = await a.acquire("normal");
      quick();
      let third: ReleaseFn | undefined;
      const pending = b.acquire("normal").then((r) => { third = r; });
      await sleep(1500); // past the window of the answered call; the slow one still holds its slot
      expect(third).toBeDefined(); // quick's slot freed
      third!();
      let fourth: ReleaseFn | undefined;
      const next = a.acquire("normal").then((r) => { fourth = r; });
      await sleep(700);
      expect(fourth).toBeUndefined(); // slow is still in flight, third's slot within its window
      slow();
      await Promise.all([pending, next]);
      fourth!();
    });

    it("a waiting launch goes before normal calls that queued earlier (no share kept for normal calls)", async () => {
      const { a, b } = await open(2, { normalShare: 0 });
      const first = await Promise.all([a.acquire("normal"), b.acquire("normal")]);
      first.forEach((r) => r());
      const order: string[] = [];
      const normal = b.acquire("normal").then((r) => { order.push("normal"); return r; });
      await sleep(50);
      const launch = a.acquire("launch").then((r) => { order.push("launch"); return r; });
      const released = await Promise.all([normal, launch]);
      released.forEach((r) => r());
      expect(order[0]).toBe("launch");
    });

    it("a launch storm does not shut a normal call out: within its share it takes one of the next free slots", async () => {
      const { a, b } = await open(4, { normalShare: 0.25 });
      const first = await Promise.all([a, b, a, b].map((x) => x.acquire("launch")));
      first.forEach((r) => r());
      const order: string[] = [];
      const storm = Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquire("launch").then((r) => { order.push("launch"); r(); }));
      await sleep(100);
      const normal = b.acquire("normal").then((r) => { order.push("normal"); r(); });
      await normal;
      // ⌈0.25 × 4⌉ = 1 normal call per window: it goes in one of the next windows, not
      // after the ten launches queued before it (index 10; three windows later).
      expect(order.indexOf("normal")).toBeLessThan(10);
      await Promise.all(storm);
    });

    it("an aborted wait rejects with the signal's reason and gives its place up", async () => {
      const { a, b } = await open(1);
      (await a.acquire("normal"))();
      const controller = new AbortController();
      const gaveUp = b.acquire("normal", controller.signal);
      await sleep(100);
      controller.abort(new Error("caller left"));
      await expect(gaveUp).rejects.toThrow("caller left");
      const next = await a.acquire("normal"); // takes the freed place, about a window after the first
      next();
    });

    it("a 429 pause on one instance holds calls on every instance until it ends", async () => {
      const { a, b } = await open(100);
      (await b.acquire("normal"))();
      const pausedAt = Date.now();
      a.pause(pausedAt + 800);
      await sleep(50);
      const release = await b.acquire("normal");
      release();
      expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(700);
    });

    it("a platform Remaining of 0 holds calls on every instance until its reset", async () => {
      const { a, b } = await open(100);
      (await a.acquire("normal"))();
      const observedAt = Date.now();
      a.observe({ limit: 100, remaining: 0, resetAt: observedAt + 900 });
      await sleep(50);
      const release = await b.acquire("normal");
      release();
      expect(Date.now() - observedAt).toBeGreaterThanOrEqual(750);
    });

    it("a Remaining of 0 holds calls only until one of ours leaves the window, not until a later Reset", async () => {
      const { a, b } = await open(100);
      (await a.acquire("normal"))();
      const answeredAt = Date.now();
      // The platform rounds its Reset up to whole seconds (and a Reset can lie further off):
      // our answered call leaving our window frees a platform slot sooner.
      a.observe({ limit: 100, remaining: 0, resetAt: answeredAt + 5000 });
      await sleep(50);
      const release = await b.acquire("normal");
      release();
      const waited = Date.now() - answeredAt;
      expect(waited).toBeGreaterThanOrEqual(700);
      expect(waited).toBeLessThan(1800);
    });

    it("a Remaining counts against it only the calls in flight sent after the call that brought it", async () => {
      const { a, b } = await open(100);
      const first = await a.acquire("normal");
      await sleep(10);
      const second = await b.acquire("normal");
      await sleep(10);
      const last = await a.acquire("normal");
      // The last call's answer: the platform counted the two sent before it. One slot left.
      a.observe({ limit: 100, remaining: 1, resetAt: Date.now() + 900 }, last);
      await sleep(50);
      let started = Date.now();
      const fourth = await b.acquire("normal");
      expect(Date.now() - started).toBeLessThan(400);
      // The first call's answer: the two sent after it may not be counted yet, nor the
      // fourth: Remaining 1 is spent, and the next call waits for the Reset.
      a.observe({ limit: 100, remaining: 1, resetAt: Date.now() + 900 }, first);
      await sleep(50);
      started = Date.now();
      const fifth = await b.acquire("normal");
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
      [first, second, last, fourth, fifth].forEach((r) => r());
    });

    it("stats report the window, the limit and what was sent", async () => {
      const { a } = await open(3);
      const r = await a.acquire("normal");
      const during = a.stats();
      r();
      expect(during).toMatchObject({ limit: 3, windowMs: 1000, inFlight: 1 });
      expect(during.sentInWindow).toBeGreaterThanOrEqual(1);
      expect(a.stats().totalSent).toBeGreaterThanOrEqual(1);
    });
  });
}
