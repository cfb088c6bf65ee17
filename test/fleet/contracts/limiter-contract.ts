/** The LaunchLimiter promises, for the in-process and the Redis implementation alike. */
import { afterAll, describe, expect, it } from "vitest";
import type { LaunchLimiter } from "../../../src/fleet/launch-limiter.js";
import { lapses, TIMINGS, type MakePair, type Pair } from "./pair.js";

const { refillMs: REFILL, failureBackoffMs: BACKOFF } = TIMINGS.launchLimit;

/** `make` must use the launch limit of `TIMINGS`: a burst of 3, and a refill and a failure backoff of seconds. */
export function describeLimiterContract(name: string, make: MakePair<LaunchLimiter>): void {
  // Concurrent: each test has its own pair, and on Redis the waits for refills overlap.
  describe.concurrent(`${name}: the LaunchLimiter contract`, () => {
    const opened: Pair<LaunchLimiter>[] = [];
    const open = async () => { const p = await make(); opened.push(p); return p; };
    afterAll(async () => { await Promise.all(opened.splice(0).map((p) => p.close())); });
    let n = 0;
    const student = () => `student-${++n}-${Math.random()}`;

    it("a burst of 3 issued tokens across instances, then a refusal with a Retry-After near one refill", async () => {
      const { a, b } = await open();
      const user = student();
      for (let i = 0; i < 3; i++) {
        expect((await (i % 2 ? a : b).check("exam-1", user)).allowed).toBe(true);
        await (i % 2 ? b : a).record("exam-1", user);
      }
      const refused = await b.check("exam-1", user);
      expect(refused.allowed).toBe(false);
      expect(refused.remaining).toBe(0);
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(REFILL);
      // Other students and other exams are unaffected.
      expect((await a.check("exam-1", student())).allowed).toBe(true);
      expect((await a.check("exam-2", user)).allowed).toBe(true);
    });

    it("check counts nothing", async () => {
      const { a } = await open();
      const user = student();
      for (let i = 0; i < 10; i++) await a.check("exam-1", user);
      expect(await a.check("exam-1", user)).toEqual({ allowed: true, retryAfterMs: 0, remaining: 3 });
    });

    it("refills one call per refill period", async () => {
      const { a, b, clock } = await open();
      const user = student();
      for (let i = 0; i < 3; i++) await a.record("exam-1", user);
      expect((await b.check("exam-1", user)).allowed).toBe(false);
      await lapses(clock, REFILL, async () => (await b.check("exam-1", user)).allowed, "one call refilled");
      // Seen as soon as it came: one call, the next a whole refill away.
      expect((await b.check("exam-1", user)).remaining).toBe(1);
      await clock.pass(REFILL);
      expect((await b.check("exam-1", user)).remaining).toBe(2);
    });

    it("a failed call takes from the share and starts a backoff that shows the failure on every instance", async () => {
      const { a, b } = await open();
      const user = student();
      const failed = await a.recordFailure("exam-1", user, "the class is full");
      expect(failed).toMatchObject({ allowed: false, remaining: 2, lastFailure: "the class is full" });
      expect(failed.retryAfterMs).toBeGreaterThan(0);
      expect(failed.retryAfterMs).toBeLessThanOrEqual(BACKOFF);
      const seen = await b.check("exam-1", user);
      expect(seen).toMatchObject({ allowed: false, lastFailure: "the class is full" });
      // Other students and exams are unaffected.
      expect(await b.check("exam-2", user)).toEqual({ allowed: true, retryAfterMs: 0, remaining: 3 });
      // Three failed calls use the whole burst: past the backoff, the bucket still waits.
      await b.recordFailure("exam-1", user, "the class is full");
      await a.recordFailure("exam-1", user, "the class is full");
      expect((await a.check("exam-1", user)).remaining).toBe(0);
    });

    it("the backoff doubles with each failure in a row, and an issued token ends the streak", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const untilAllowed = (afterMs: number) => lapses(clock, afterMs, async () => (await a.check("exam-1", user)).allowed, "the backoff ends");
      expect((await a.recordFailure("exam-1", user, "x")).retryAfterMs).toBeLessThanOrEqual(BACKOFF);
      await untilAllowed(BACKOFF);
      const second = await b.recordFailure("exam-1", user, "y");
      expect(second.retryAfterMs).toBeGreaterThan(BACKOFF);
      expect(second.retryAfterMs).toBeLessThanOrEqual(2 * BACKOFF);
      expect(second.lastFailure).toBe("y");
      await untilAllowed(2 * BACKOFF);
      const issued = await a.record("exam-1", user);
      expect(issued.lastFailure).toBeUndefined();
      expect((await b.check("exam-1", user)).lastFailure).toBeUndefined();
      // A new streak starts at the first step again.
      expect((await b.recordFailure("exam-1", user, "z")).retryAfterMs).toBeLessThanOrEqual(BACKOFF);
    });

    it("tokens issued past the limit (concurrent calls) still count, delaying the next", async () => {
      const { a, b } = await open();
      const user = student();
      await Promise.all(Array.from({ length: 5 }, (_, i) => (i % 2 ? a : b).record("exam-1", user)));
      const refused = await a.check("exam-1", user);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterMs).toBeGreaterThan(REFILL); // two owed, so more than one refill
    });
  });
}
