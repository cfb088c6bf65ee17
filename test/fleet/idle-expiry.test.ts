/**
 * Every fleet key expires when idle: with many organizations, each key of theirs (each
 * its own rate window) would otherwise stay in Redis forever. The shared rate budget's
 * keys (window, in flight, reservations, epoch…) carry a lifetime from their first write,
 * and are gone two windows after the last call stops counting; a budget whose window
 * expired that way admits its next call at once (it is not taken for a window Redis lost,
 * which would hold the call back a whole window). The list of active pre-warm plans
 * (whose members name organizations) expires with the latest plan in it.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import type { SharedBudget } from "../../src/fleet/fleet.js";
import type { SharedRateBudget } from "../../src/fleet/redis-rate-budget.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const available = await redisOrSkip("the fleet's idle expiry");
const prefix = randomPrefix("idle");
const WINDOW_MS = 1_000;

describe.runIf(available)("the shared rate budget's keys, idle", () => {
  const raw = new Redis(REDIS_URL);
  const fleet = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, rateLimitPerMinute: 3, rateWindowMs: WINDOW_MS, commandTimeoutMs: 3_000 });
  afterAll(async () => {
    await fleet.close();
    await dropPrefix(prefix);
    raw.disconnect();
  });
  const keys = async () => {
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await raw.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1_000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== "0");
    return found;
  };

  it("gives each key a lifetime, drops them all once idle, and admits the next call at once", async () => {
    await fleetReady(fleet, 5_000);
    const budget = (fleet.rateBudget as SharedBudget).forKey("key-hash-of-one-organization");
    // Launch and normal calls, and one that has to wait for a slot (a reservation).
    const calls = await Promise.all([budget.acquire("launch"), budget.acquire("normal"), budget.acquire("launch")]);
    for (const release of calls) release();
    (await budget.acquire("launch"))(); // the fourth of a limit of 3: reserved, then admitted
    await new Promise((r) => setTimeout(r, 100)); // the releases reach Redis
    const written = await keys();
    expect(written.length).toBeGreaterThanOrEqual(2); // at least the window and its epoch
    const ttls = await Promise.all(written.map((k) => raw.pttl(k)));
    expect(written.filter((_, i) => ttls[i]! < 0)).toEqual([]); // -1: no lifetime
    // Each a few windows at most: nothing counts after the last release's window.
    expect(Math.max(...ttls)).toBeLessThanOrEqual(12 * WINDOW_MS);

    // Idle: two windows after the last call stopped counting (meta: ten windows) nothing is left.
    await expect.poll(keys, { timeout: 15_000, interval: 250 }).toEqual([]);

    // The window expired, it was not lost: the next calls go at once (a window taken for
    // lost would send one probe and hold the other until it is answered, or a window).
    const started = Date.now();
    const next = await Promise.all([budget.acquire("launch"), budget.acquire("launch")]);
    expect(Date.now() - started).toBeLessThan(WINDOW_MS / 2);
    for (const release of next) release();
  }, 30_000);

  it("gives the list of active plans the lifetime of its latest plan", async () => {
    await fleetReady(fleet, 5_000);
    const until = Date.now() + 1_500;
    await fleet.planLeases.publish("@north/exam-1", JSON.stringify({ examId: "exam-1" }), until);
    await fleet.planLeases.publish("@south/exam-2", JSON.stringify({ examId: "exam-2" }), until - 1_000); // an earlier one does not shorten it
    expect(await fleet.planLeases.activePlans()).toEqual(expect.arrayContaining(["@north/exam-1", "@south/exam-2"]));
    const written = await keys();
    const ttls = await Promise.all(written.map((k) => raw.pttl(k)));
    expect(written.filter((_, i) => ttls[i]! < 0)).toEqual([]);
    expect(Math.min(...ttls)).toBeGreaterThan(0);
    await expect.poll(keys, { timeout: 5_000, interval: 100 }).toEqual([]);
  });

  it("keeps a plan's progress planProgressTtlMs after its last change", async () => {
    const short = redisFleet({ url: REDIS_URL, secret: SECRET, prefix: `${prefix}-p`, planProgressTtlMs: 1_500, commandTimeoutMs: 3_000 });
    try {
      await fleetReady(short, 5_000);
      await short.planLeases.record("@north/exam-3", { snapshot: "{}" });
      const [key] = await raw.keys(`${prefix}-p:*progress*`);
      expect(key).toBeDefined();
      const ttl = await raw.pttl(key!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1_500);
    } finally {
      await short.close();
      await dropPrefix(`${prefix}-p`);
    }
  });

  it("lets the budget of an idle key go with the last client that held it (memory does not grow per organization)", async () => {
    await fleetReady(fleet, 5_000);
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const root = fleet.rateBudget as SharedRateBudget;
    const held = root.forKey("key-hash-held");
    // A thousand organizations' keys, each used once, then dropped by their clients.
    for (let i = 0; i < 1_000; i++) (await root.forKey(`key-hash-${i}`).acquire("launch"))();
    await expect.poll(async () => {
      gc();
      await new Promise((r) => setTimeout(r, 20)); // finalizers run after the collection
      return root.keyBudgets;
    }, { timeout: 10_000, interval: 50 }).toBeLessThan(10);
    // A budget a client still holds stays, and is the one the key gets again.
    expect(root.forKey("key-hash-held")).toBe(held);
  }, 30_000);
});
