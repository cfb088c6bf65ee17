/**
 * Redis lost with the window in it, on a private redis-server (no persistence) on a free
 * port: restarted empty, the shared window is taken to be full for one window length and
 * learnt from the platform's headers (one probe fleet-wide); gone, each instance's
 * fallback takes it to be full too. Either way the platform, whose window is still full,
 * answers at most one 429, and every call completes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { fleetReady, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { createPlatformClient, type PlatformClient } from "../../src/platform/index.js";
import { TEST_KEY } from "../support/keys.js";
import { freePort, randomPrefix, redisOrSkip, SECRET, startRedisServer } from "../support/redis.js";

const available = await redisOrSkip("the Redis restart tests");
const LIMIT = 10;
const WINDOW_MS = 4000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)("when Redis loses the window", () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

  async function setUp(instances: number) {
    const port = await freePort();
    const redis = { server: await startRedisServer(port) };
    cleanups.push(() => redis.server.stop());
    const emulator: Emulator = await startEmulator({ testKeys: [TEST_KEY], rateLimits: { dev: LIMIT, windowMs: WINDOW_MS } });
    cleanups.push(() => emulator.close());
    const prefix = randomPrefix("restart");
    const fleets: RedisFleet[] = [];
    const clients: PlatformClient[] = [];
    for (let i = 0; i < instances; i++) {
      const fleet = redisFleet({ url: redis.server.url, secret: SECRET, prefix, rateLimitPerMinute: LIMIT, rateWindowMs: WINDOW_MS, expectedInstances: instances, commandTimeoutMs: 200 });
      const client = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: fleet.rateBudget, maxRetries: 5, deadlineMs: 60_000 });
      cleanups.push(() => fleet.close(), () => client.close());
      expect(await fleetReady(fleet)).toBe(true);
      fleets.push(fleet);
      clients.push(client);
    }
    // The platform's window fills over 1.5 s (so it frees a slot at a time after WINDOW_MS),
    // the first instance's calls first: the Remaining it saw last is not what is left.
    for (let i = 0; i < LIMIT; i++) {
      await clients[Math.floor((i * instances) / LIMIT)]!.courses.list();
      await sleep(150);
    }
    return { port, redis, emulator, fleets, clients };
  }
  const storm = (clients: PlatformClient[], n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => clients[i % clients.length]!.courses.list().then(() => "ok", (e: { status?: number }) => `failed ${e.status}`)));
  const refusedSince = (emulator: Emulator, since: number) => emulator.requests.filter((r) => r.at >= since && r.status === 429).length;

  // Retried like redis-outage's "restarted empty" (docs/fleet.md, Limits): 2 platform 429s
  // once in a clean-clone CI run of 2026-11-26 and in 1 of 8 runs alone under six CPU
  // burners (load 7; 0 of 8 under three, 0 of 22 at load 7-8 with a logger attached). Each
  // retry is a fresh fleet, window and Redis restart; a real regression fails every attempt.
  it("restarted empty: two instances take the window to be full and meet at most one 429", { retry: 2 }, async () => {
    const { port, redis, emulator, fleets, clients } = await setUp(2);
    await redis.server.stop();
    redis.server = await startRedisServer(port);
    for (const fleet of fleets) expect(await fleetReady(fleet, 10_000)).toBe(true);
    const since = Date.now();
    expect(await storm(clients, 2 * LIMIT)).toEqual(Array(2 * LIMIT).fill("ok"));
    expect(refusedSince(emulator, since)).toBeLessThanOrEqual(1);
  });

  it("gone: the fallback takes the window to be full, not empty, nor as empty as a Remaining seen before", async () => {
    const { redis, emulator, fleets, clients } = await setUp(2);
    await redis.server.stop();
    const since = Date.now();
    expect(await storm(clients.slice(0, 1), LIMIT)).toEqual(Array(LIMIT).fill("ok"));
    expect(fleets[0]!.rateBudget.stats().mode).toBe("fallback");
    expect(refusedSince(emulator, since)).toBeLessThanOrEqual(1);
  });
});
