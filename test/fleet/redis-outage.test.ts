/**
 * Redis away for 5 s in the middle of a launch storm (issue 29, part 6), on a private
 * redis-server (no persistence) on a free port: the shared one on 6379 is never touched.
 * Redis is killed, stays away 5 s (more than 1.5 windows, after which an idle instance
 * forgets the window's epoch), and is started again empty; or it keeps running and the
 * instances lose it for 5 s (their proxies close). The instances come back at
 * different times, as ioredis reconnects them: each reaches Redis through a TCP proxy on
 * 127.0.0.1 port 0, and the test keeps B's closed until instance A is back and has sent
 * through Redis, so A runs on the shared window while B still sends on its fallback.
 * Every launch call completes, and the platform answers at most one 429.
 *
 * B's proxy opens as soon as A's first call through Redis reached the platform, not
 * later: the shared window keeps the share of instances not back yet for
 * `RETURN_WITHIN_MS` (3 s: ioredis's longest retry delay, 2 s, and the first command)
 * or a window, whichever is longer; an instance cut off for longer than that is a
 * partition the fleet does not plan for (docs/fleet.md, Limits).
 *
 * Each instance asks for a different list (A courses, B oral assessments), so the
 * platform's request log tells whose call each answer went to.
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
    const call = [(c: PlatformClient) => c.courses.list({ priority: "launch" }), (c: PlatformClient) => c.oralAssessments.list(undefined, { priority: "launch" })];
    const students = clients.flatMap((client, i) => Array.from({ length: 4 }, async () => {
      while (storming) {
        outcomes.push(await call[i]!(client).then(() => "ok", (e: { status?: number; name?: string }) => `failed ${e.status ?? e.name}`));
      }
    }));
    const sentByA = (after: number) => emulator.requests.some((r) => r.at >= after && r.path.startsWith("/courses") && r.status !== 0);
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
    // A is back and sends through the shared window while B is still on its fallback.
    await until(() => shared(a));
    const aBack = Date.now();
    await until(() => sentByA(aBack));
    expect(shared(b)).toBe(false);
    proxy.open = true;
    await until(() => shared(b));
    const afterB = outcomes.length;
    await until(() => outcomes.length >= afterB + 2 * LIMIT);
    storming = false;
    await Promise.all(students);

    expect(outcomes.filter((o) => o !== "ok")).toEqual([]);
    // On failure, each 429 with the platform's window before it: whose call (A or B),
    // answered how, at how many ms after Redis went away.
    const whose = (r: { path: string }) => (r.path.startsWith("/courses") ? "A" : "B");
    const refused = emulator.requests.filter((r) => r.at >= since && r.status === 429).map((r) => `${whose(r)} at ${r.at - since} ms after `
      + emulator.requests.filter((q) => q.at > r.at - WINDOW_MS && q.at <= r.at && q !== r).map((q) => `${whose(q)}${q.status}@${q.at - since}`).join(" "));
    expect(refused.length, `platform 429s: ${refused.join("; ")}; A back at ${aBack - since} ms`).toBeLessThanOrEqual(1);
  }

  // Both retried (docs/fleet.md, Limits). Until 2026-11-26 B's proxy opened only after ten
  // more calls, which kept B away past the fleet's 3 s allowance on a loaded machine: 2-3
  // platform 429s in CI runs, and 2 in 18 runs alone under CPU burners, one of them logged
  // as A taking the whole window while B still sent on its fallback. Opened at A's first
  // call through Redis: that no longer happens, but 1 run in 18 under three burners still
  // saw two 429s from A's fallback (a probe 1 s into the outage and one just before A was
  // back). Each retry is a fresh storm and outage; a real regression fails every attempt.
  it("restarted empty: no launch fails and the platform answers at most one 429 while the instances come back one by one", { retry: 2, timeout: 120_000 }, () => outage(true));
  it("kept, out of reach: no launch fails and the platform answers at most one 429 while the instances come back one by one", { retry: 2, timeout: 120_000 }, () => outage(false));
});
