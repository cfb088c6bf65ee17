/**
 * The CircuitBreakerStore promises, for the in-process and the Redis implementation alike
 * (on Redis: two fleets on one prefix, i.e. two app instances, and Redis's clock). The
 * state machine's arithmetic is tested on a fake clock in test/fleet/circuit-breaker.test.ts;
 * this contract proves the stores share one state and hand out one probe fleet-wide.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { CircuitBreakerStore } from "../../../src/fleet/circuit-breaker.js";
import { lapses, TIMINGS, type MakePair, type Pair, type TestClock } from "./pair.js";

const { openMs: OPEN, probeLeaseMs: PROBE_LEASE } = TIMINGS.circuitBreaker;

/** `make` must use the circuit breaker of `TIMINGS`: minFailures 3, failureRatio 0.5, a long window, openMs and probeLeaseMs of seconds. */
export function describeBreakerContract(name: string, make: MakePair<CircuitBreakerStore>): void {
  // Concurrent: each test has its own pair, and on Redis the waits for the open period overlap.
  describe.concurrent(`${name}: the CircuitBreakerStore contract`, () => {
    const opened: Pair<CircuitBreakerStore>[] = [];
    const open = async () => { const p = await make(); opened.push(p); return p; };
    afterAll(async () => { await Promise.all(opened.splice(0).map((p) => p.close())); });
    let n = 0;
    const scope = () => `org\u0000key-${++n}-${Math.random()}\u0000sign-in`;

    const fail = async (store: CircuitBreakerStore, s: string, times: number) => {
      for (let i = 0; i < times; i++) {
        const admission = await store.admit(s);
        expect(admission.allowed).toBe(true);
        await store.settle(s, "failure", false);
      }
    };
    /** Waits (on the store's own clock) until the open period is over. */
    const untilProbeMayGo = (clock: TestClock, store: CircuitBreakerStore, s: string) =>
      lapses(clock, OPEN, async () => (await store.view(s)).retryAfterMs === 0, "the open period ends");

    it("opens for the whole fleet: failures counted on one instance refuse calls on the other, with the time left", async () => {
      const { a, b } = await open();
      const s = scope();
      await fail(a, s, 2);
      await fail(b, s, 1);
      const refused = await a.admit(s);
      expect(refused).toMatchObject({ allowed: false, state: "open" });
      expect(refused.allowed === false && refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.allowed === false && refused.retryAfterMs).toBeLessThanOrEqual(OPEN);
      expect((await b.view(s)).state).toBe("open");
      // Another scope (key or endpoint) is not affected.
      expect((await b.admit(scope())).allowed).toBe(true);
    });

    it("successes keep it closed while failures stay under the ratio", async () => {
      const { a, b } = await open();
      const s = scope();
      for (let i = 0; i < 4; i++) await (i % 2 ? a : b).settle(s, "success", false);
      await fail(a, s, 3); // 3 of 7
      expect((await b.view(s)).state).toBe("closed");
      await fail(b, s, 1); // 4 of 8: half
      expect((await a.view(s)).state).toBe("open");
    });

    it("hands out exactly one probe fleet-wide after openMs; its success closes the breaker everywhere", async () => {
      const { a, b, clock } = await open();
      const s = scope();
      await fail(a, s, 3);
      await untilProbeMayGo(clock, b, s);
      const admissions = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).admit(s)));
      const probes = admissions.filter((x) => x.allowed);
      expect(probes).toEqual([{ allowed: true, probe: true }]);
      for (const refused of admissions.filter((x) => !x.allowed)) {
        expect(refused).toMatchObject({ allowed: false, state: "half_open" });
      }
      expect(await b.settle(s, "success", true)).toBe("closed");
      expect(await a.admit(s)).toEqual({ allowed: true, probe: false });
    });

    it("a failed probe opens it again for openMs", async () => {
      const { a, b, clock } = await open();
      const s = scope();
      await fail(b, s, 3);
      await untilProbeMayGo(clock, a, s);
      expect(await a.admit(s)).toEqual({ allowed: true, probe: true });
      expect(await a.settle(s, "failure", true)).toBe("opened");
      const refused = await b.admit(s);
      expect(refused).toMatchObject({ allowed: false, state: "open" });
      // The first period was over: any time left is a new one, of at most openMs.
      expect(refused.allowed === false && refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.allowed === false && refused.retryAfterMs).toBeLessThanOrEqual(OPEN);
    });

    it("a probe whose instance never reports lapses: another instance probes after the lease", async () => {
      const { a, b, clock } = await open();
      const s = scope();
      await fail(a, s, 3);
      await untilProbeMayGo(clock, a, s);
      expect((await a.admit(s)).allowed).toBe(true); // never settled
      let next = await b.admit(s);
      expect(next).toMatchObject({ allowed: false, state: "half_open" }); // its lease still runs
      await lapses(clock, PROBE_LEASE, async () => {
        next = await b.admit(s);
        if (!next.allowed) expect(next.state).toBe("half_open");
        return next.allowed;
      }, "the unsettled probe's lease lapses");
      expect(next).toEqual({ allowed: true, probe: true });
    });
  });
}
