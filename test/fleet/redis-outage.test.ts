/**
 * Redis away for 5 s in the middle of a launch storm (issue 29, part 6), on a private
 * redis-server (no persistence) on a free port: the shared one on 6379 is never touched.
 * Redis is killed, stays away 5 s (more than 1.5 windows, after which an idle instance
 * forgets the window's epoch), and is started again empty; or it keeps running and the
 * instances lose it for 5 s (their proxies close). The instances come back at
 * different times, as ioredis reconnects them: each reaches Redis through a TCP proxy on
 * 127.0.0.1 port 0, and the test keeps B's closed until instance A is back and
 * sending through Redis, so A runs on the shared window while B still sends on its
 * fallback. Every launch call completes, and the platform answers at most one 429.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { fleetReady, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { createPlatformClient, type PlatformClient } from "../../src/platform/index.js";
import { TEST_KEY } from "../support/keys.js";
import { freePort, randomPrefix, redisOrSkip, SECRET, startRedisServer } from "../support/redis.js";
import { tcpProxy } from "../support/tcp-proxy.js";

const available = await redisOrSkip("the Redis outage test");
const LIMIT = 10;
const WINDOW_MS = 2000;
/** How long Redis stays away: the outage, 2.5 windows here. */
const OUTAGE_MS = 5000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds (up to `ms`). */
async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting for the fleet");
    await sleep(25);
  }
}

describe.runIf(available)("Redis away for 5 s mid-storm", () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

  /**
   * `lost`: Redis is killed and started again empty (the soak's case); otherwise it keeps
   * running with its data and only the instances lose it (a network outage: A's proxy
   * closes too).
   */
  async function outage(lost: boolean) {
    const port = await freePort();
    const redis = { server: await startRedisServer(port) };
    cleanups.push(() => redis.server.stop());
    const proxy = await tcpProxy(port);
    const proxyA = await tcpProxy(port);
    cleanups.push(() => proxy.close(), () => proxyA.close());
    const emulator: Emulator = await startEmulator({ testKeys: [TEST_KEY], rateLimits: { dev: LIMIT, windowMs: WINDOW_MS } });
    cleanups.push(() => emulator.close());
    const prefix = randomPrefix("outage");
    const fleets: RedisFleet[] = [];
    const clients: PlatformClient[] = [];
    for (const url of [`redis://127.0.0.1:${proxyA.port}`, `redis://127.0.0.1:${proxy.port}`]) {
      const fleet = redisFleet({ url, secret: SECRET, prefix, rateLimitPerMinute: LIMIT, rateWindowMs: WINDOW_MS, expectedInstances: 2, commandTimeoutMs: 200 });
      const client = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: fleet.rateBudget, maxRetries: 5, deadlineMs: 60_000 });
      cleanups.push(() => fleet.close(), () => client.close());
      expect(await fleetReady(fleet)).toBe(true);
      fleets.push(fleet);
      clients.push(client);
    }
    const [a, b] = fleets as [RedisFleet, RedisFleet];
    const shared = (fleet: RedisFleet) => fleet.rateBudget.stats().mode === "shared";

    // The storm: on each instance, 4 students at a time ask for their sign-in (launch calls) until told to stop.
    let storming = true;
    const outcomes: string[] = [];
    const students = clients.flatMap((client) => Array.from({ length: 4 }, async () => {
      while (storming) {
        outcomes.push(await client.courses.list({ priority: "launch" }).then(() => "ok", (e: { status?: number; name?: string }) => `failed ${e.status ?? e.name}`));
      }
    }));
    cleanups.push(async () => { storming = false; await Promise.allSettled(students); });
    // Both instances run on the shared window first (both know its epoch).
    await until(() => outcomes.length >= 2 * LIMIT);
    expect(shared(a) && shared(b)).toBe(true);

    const since = Date.now();
    proxy.open = false;
    proxyA.open = false;
    if (lost) await redis.server.stop();
    else for (const p of [proxy, proxyA]) p.drop();
    // The outage itself is the scenario: Redis stays away OUTAGE_MS while the storm runs on the fallbacks.
    await until(() => !shared(a) && !shared(b));
    await sleep(OUTAGE_MS);
    if (lost) redis.server = await startRedisServer(port);
    proxyA.open = true;
    // A is back and sends through the (empty) shared window while B is still on its fallback.
    await until(() => shared(a));
    const sentByA = outcomes.length;
    await until(() => outcomes.length >= sentByA + LIMIT);
    expect(shared(b)).toBe(false);
    proxy.open = true;
    await until(() => shared(b));
    const afterB = outcomes.length;
    await until(() => outcomes.length >= afterB + 2 * LIMIT);
    storming = false;
    await Promise.all(students);

    expect(outcomes.filter((o) => o !== "ok")).toEqual([]);
    expect(emulator.requests.filter((r) => r.at >= since && r.status === 429).length).toBeLessThanOrEqual(1);
  }

  // Retried like restart-races' fallback case (docs/fleet.md, Limits): on a loaded machine
  // this case saw 2-3 platform 429s in both clean-clone CI runs of 2026-11-26 and in 1 of 3
  // runs of the code before that day under two CPU burners (0 in 9 alone). Each retry is a
  // fresh storm and a fresh Redis restart; a real regression fails every attempt.
  it("restarted empty: no launch fails and the platform answers at most one 429 while the instances come back one by one", { retry: 2, timeout: 120_000 }, () => outage(true));
  it("kept, out of reach: no launch fails and the platform answers at most one 429 while the instances come back one by one", () => outage(false), 120_000);
});
