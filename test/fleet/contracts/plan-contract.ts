/** The PlanLeaseStore promises, for the in-process and the Redis implementation alike. */
import { afterAll, describe, expect, it } from "vitest";
import type { PlanLeaseStore } from "../../../src/fleet/plan-lease.js";
import { lapses, TIMINGS, type MakePair, type Pair } from "./pair.js";

/** `make` must use the plan lease of `TIMINGS`. */
export function describePlanContract(name: string, make: MakePair<PlanLeaseStore>): void {
  // Concurrent: each test has its own pair, and on Redis the waits for lapses overlap.
  describe.concurrent(`${name}: the PlanLeaseStore contract`, () => {
    const opened: Pair<PlanLeaseStore>[] = [];
    const open = async () => { const p = await make(); opened.push(p); return p; };
    afterAll(async () => { await Promise.all(opened.splice(0).map((p) => p.close())); });
    let n = 0;
    const plan = () => `exam-${++n}-${Math.random()}`;

    it("one leader at a time; it renews, the other cannot lead or resign it", async () => {
      const { a, b } = await open();
      const id = plan();
      expect(await a.lead(id, "A")).toBe(true);
      expect(await b.lead(id, "B")).toBe(false);
      expect(await b.leader(id)).toBe("A");
      expect(await a.lead(id, "A")).toBe(true); // keeping it is leading
      expect(await a.renew(id, "A")).toBe(true);
      expect(await b.renew(id, "B")).toBe(false);
      await b.resign(id, "B");
      expect(await a.leader(id)).toBe("A");
      await a.resign(id, "A");
      expect(await b.lead(id, "B")).toBe(true);
    });

    it("16 concurrent candidates: exactly one leads", async () => {
      const { a, b } = await open();
      const id = plan();
      const won = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).lead(id, `holder-${i}`)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await a.leader(id)).toBe(`holder-${won.indexOf(true)}`);
    });

    it("a leader that dies (stops renewing) is replaced after its lease", async () => {
      const { a, b, clock } = await open();
      const id = plan();
      expect(await a.lead(id, "A")).toBe(true);
      expect(await b.lead(id, "B")).toBe(false); // its lease still runs
      await lapses(clock, TIMINGS.planLeaseMs, async () => (await b.leader(id)) === undefined, "the dead leader's lease lapses");
      expect(await b.lead(id, "B")).toBe(true);
      expect(await a.renew(id, "A")).toBe(false);
      expect(await a.leader(id)).toBe("B");
    });

    it("progress written by one instance is read by another; counters add up", async () => {
      const { a, b } = await open();
      const id = plan();
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).count(id, { ready: 1, platformCalls: 2 })));
      await a.count(id, { ready: -3 });
      await b.record(id, { state: "issuing", roster: 40 });
      expect(await a.progress(id)).toEqual({ ready: 7, platformCalls: 20, state: "issuing", roster: 40 });
      expect(await b.progress(plan())).toEqual({});
    });

    it("per-student marks written by any instance are read by another; handed out wins over on demand", async () => {
      const { a, b, clock } = await open();
      const id = plan();
      const [ada, bob, cy] = ["u-ada\u0000ada@school.test", "u-bob\u0000bob@school.test", "u-cy\u0000cy@school.test"];
      const until = clock.now() + 60_000;
      await a.markStored(id, ada, until);
      await b.markTaken(id, bob, "handedOut");
      await a.markTaken(id, bob, "onDemand");
      await b.markTaken(id, ada, "onDemand");
      const marks = await b.marks(id, [ada, bob, cy]);
      expect(Object.fromEntries(marks)).toEqual({ [ada]: { usableUntil: until, taken: "onDemand" }, [bob]: { taken: "handedOut" } });
      expect(Object.fromEntries(await a.marks(id, [ada, bob, cy], "taken"))).toEqual({ [ada]: { taken: "onDemand" }, [bob]: { taken: "handedOut" } });
      expect((await a.marks(plan(), [ada])).size).toBe(0);
    });

    it("a plan's input published by one instance is read by another, and listed as active until its end", async () => {
      const { a, b, clock } = await open();
      const id = plan();
      const gone = plan();
      const goneAfterMs = 2_000; // seconds of margin for the reads below, on a loaded machine
      await a.publish(id, JSON.stringify({ roster: [1, 2] }), clock.now() + 60_000);
      await a.publish(gone, "{}", clock.now() + goneAfterMs);
      expect(await b.published(id)).toBe(JSON.stringify({ roster: [1, 2] }));
      expect(await b.activePlans()).toEqual(expect.arrayContaining([id, gone]));
      await b.publish(id, "{\"v\":2}", clock.now() + 60_000); // a newer prepare replaces it
      expect(await a.published(id)).toBe("{\"v\":2}");
      expect(await a.published(gone)).toBe("{}");
      await lapses(clock, goneAfterMs, async () => (await a.published(gone)) === undefined, "the ended plan's input is gone");
      expect(await a.activePlans()).toContain(id);
      expect(await b.activePlans()).not.toContain(gone);
    });
  });
}
