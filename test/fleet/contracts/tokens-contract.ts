/** The PreparedTokenStore promises, for the in-process and the Redis implementation alike. */
import { inspect } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { PreparedTokenStore } from "../../../src/fleet/prepared-tokens.js";
import { lapses, type MakePair, type Pair } from "./pair.js";

export function describeTokensContract(name: string, make: MakePair<PreparedTokenStore>): void {
  // Concurrent: each test has its own pair, and on Redis the wait for an expiry overlaps the others.
  describe.concurrent(`${name}: the PreparedTokenStore contract`, () => {
    const opened: Pair<PreparedTokenStore>[] = [];
    const open = async () => { const p = await make(); opened.push(p); return p; };
    afterAll(async () => { await Promise.all(opened.splice(0).map((p) => p.close())); });
    let n = 0;
    const student = () => `student-${++n}-${Math.random()}`;

    it("a token put by one instance is handed out by another, once", async () => {
      const { a, b } = await open();
      const user = student();
      const until = Date.now() + 60_000;
      await a.put("exam-1", user, "tok-abc", until, "class-1");
      expect(await b.has("exam-1", user)).toBe(true);
      const taken = await b.take("exam-1", user, "class-1");
      expect(taken?.token).toBe("tok-abc");
      expect(taken?.usableUntil).toBe(until);
      expect(await a.take("exam-1", user, "class-1")).toBeUndefined();
      expect(await a.has("exam-1", user)).toBe(false);
    });

    it("40 concurrent takers across instances: exactly one gets the token", async () => {
      const { a, b } = await open();
      const user = student();
      await a.put("exam-1", user, "tok-race", Date.now() + 60_000, "class-1");
      const takes = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take("exam-1", user, "class-1")));
      expect(takes.filter((t) => t !== undefined).map((t) => t!.token)).toEqual(["tok-race"]);
      expect(takes.filter((t) => t === undefined)).toHaveLength(39);
    });

    it("a token is never handed out after its usable life", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const lifeMs = 2_000; // seconds of margin for `has` below, on a loaded machine
      await a.put("exam-1", user, "tok-short", clock.now() + lifeMs, "class-1");
      expect(await b.has("exam-1", user)).toBe(true);
      // `has`, not `take`: a take within the life would hand it out and prove nothing.
      await lapses(clock, lifeMs, async () => !(await b.has("exam-1", user)), "the token's usable life ends");
      expect(await b.take("exam-1", user, "class-1")).toBeUndefined();
      await a.put("exam-1", user, "tok-stale", clock.now() - 1, "class-1");
      expect(await b.take("exam-1", user, "class-1")).toBeUndefined();
    });

    it("tokens are per exam and per student; discard drops one unused", async () => {
      const { a, b } = await open();
      const user = student();
      await a.put("exam-1", user, "tok-1", Date.now() + 60_000, "class-1");
      await a.put("exam-2", user, "tok-2", Date.now() + 60_000, "class-1");
      expect(await b.take("exam-1", student(), "class-1")).toBeUndefined();
      await b.discard("exam-2", user);
      expect(await a.take("exam-2", user, "class-1")).toBeUndefined();
      expect((await a.take("exam-1", user, "class-1"))?.token).toBe("tok-1");
    });

    it("a token goes only to a launch of the class it was issued for; asked for another class, it is dropped", async () => {
      const { a, b } = await open();
      const user = student();
      await a.put("exam-1", user, "tok-class", Date.now() + 60_000, "class-1");
      expect(await b.take("exam-1", user, "class-2")).toBeUndefined();
      expect(await a.has("exam-1", user)).toBe(false);
      expect(await a.take("exam-1", user, "class-1")).toBeUndefined();
    });

    it("a taken token shows in neither util.inspect nor JSON", async () => {
      const { a, b } = await open();
      const user = student();
      await a.put("exam-1", user, "tok-secret-value", Date.now() + 60_000, "class-1");
      const taken = await b.take("exam-1", user, "class-1");
      expect(taken?.token).toBe("tok-secret-value");
      expect(inspect(taken, { showHidden: false, depth: 5 })).not.toContain("tok-secret-value");
      expect(JSON.stringify(taken)).not.toContain("tok-secret-value");
      expect(JSON.stringify({ ...taken })).not.toContain("tok-secret-value");
    });
  });
}
