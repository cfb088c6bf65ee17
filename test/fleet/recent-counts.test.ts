/**
 * The fleet's recent counts (the live view's platform 429s and errors): what one instance
 * adds, another reads, over the last minutes only; names kept apart; nothing kept past
 * RECENT_KEEP_MS (in Redis every counter has a lifetime; in process old buckets go).
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import { inProcessRecentCounts, RECENT_BUCKET_MS, RECENT_KEEP_MS } from "../../src/fleet/recent-counts.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

describe("recent counts in process", () => {
  it("sums the buckets within the window, keeps names apart, and forgets what is past its keep", async () => {
    let now = 1_000_000 * RECENT_BUCKET_MS;
    const counts = inProcessRecentCounts(() => now);
    await counts.add("north:platform429");
    await counts.add("north:platform429", 2);
    await counts.add("south:platform429");
    now += 4 * 60_000;
    await counts.add("north:platform429");
    expect(await counts.sum("north:platform429", 5 * 60_000)).toBe(4);
    expect(await counts.sum("north:platform429", 60_000)).toBe(1); // only the last minute's
    expect(await counts.sum("south:platform429", 5 * 60_000)).toBe(1);
    expect(await counts.sum("north:platformErrors", 5 * 60_000)).toBe(0);
    now += RECENT_KEEP_MS + RECENT_BUCKET_MS;
    await counts.add("other"); // prunes
    expect(await counts.sum("north:platform429", RECENT_KEEP_MS)).toBe(0);
    expect(await counts.sum("south:platform429", RECENT_KEEP_MS)).toBe(0);
  });
});

const available = await redisOrSkip("the fleet's recent counts");
const prefix = randomPrefix("recent");

describe.runIf(available)("recent counts on a Redis fleet", () => {
  const raw = new Redis(REDIS_URL);
  const a = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 3_000 });
  const b = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 3_000 });
  afterAll(async () => {
    await a.close();
    await b.close();
    await dropPrefix(prefix);
    raw.disconnect();
  });

  it("adds up what every instance counted, with a lifetime on every counter", async () => {
    await fleetReady(a, 5_000);
    await fleetReady(b, 5_000);
    await a.recentCounts.add("north:platform429");
    await b.recentCounts.add("north:platform429", 2);
    await b.recentCounts.add("south:platformErrors");
    expect(await a.recentCounts.sum("north:platform429", 5 * 60_000)).toBe(3);
    expect(await b.recentCounts.sum("north:platform429", 5 * 60_000)).toBe(3);
    expect(await a.recentCounts.sum("south:platformErrors", 5 * 60_000)).toBe(1);
    expect(await a.recentCounts.sum("south:platform429", 5 * 60_000)).toBe(0);
    const keys = await raw.keys(`${prefix}:recent:*`);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) {
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(RECENT_KEEP_MS);
    }
  });
});
