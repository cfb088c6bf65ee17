/**
 * Redis lost mid-storm, and Redis down at start, with a private redis-server child on a
 * free port (SIGKILLed, then restarted): no crash, no hang, exactly one log line when it
 * goes and one when it is back, the fallback budget (limit ÷ expectedInstances) respected
 * meanwhile, and shared mode again once Redis is back.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { fleetReady, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { createPlatformClient, type PlatformClient } from "../../src/platform/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { captureLogger } from "../support/canary.js";
import { TEST_KEY } from "../support/keys.js";
import { freePort, randomPrefix, redisOrSkip, SECRET, startRedisServer } from "../support/redis.js";
import { maxInAnyWindow } from "../../bench/lib/windows.js";

const available = await redisOrSkip("the Redis-down fleet tests");
const LIMIT = 20;
const INSTANCES = 4;
const WINDOW_MS = 1000;

describe.runIf(available)("when Redis goes away", () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterAll(async () => { for (const c of cleanups.reverse()) await c(); });

  function fleetOn(url: string, logger: ReturnType<typeof captureLogger>): RedisFleet {
    const fleet = redisFleet({ url, secret: SECRET, prefix: randomPrefix("down"), rateLimitPerMinute: LIMIT, rateWindowMs: WINDOW_MS, expectedInstances: INSTANCES, commandTimeoutMs: 200, logger });
    cleanups.push(() => fleet.close());
    return fleet;
  }
  async function stack(fleet: RedisFleet): Promise<{ emulator: Emulator; platform: PlatformClient }> {
    const emulator = await startEmulator({ testKeys: [TEST_KEY], rateLimits: { dev: 10_000, windowMs: WINDOW_MS } });
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: fleet.rateBudget, maxRetries: 0, deadlineMs: 60_000 });
    cleanups.push(() => emulator.close(), () => platform.close());
    return { emulator, platform };
  }
  const lines = (logger: ReturnType<typeof captureLogger>, event: string) => logger.lines.filter((l) => l.obj.event === event);

  it("killed mid-storm: every call still completes, on the fallback budget, with one log line each way", async () => {
    const port = await freePort();
    let redis = await startRedisServer(port);
    cleanups.push(() => redis.stop());
    const logger = captureLogger();
    const fleet = fleetOn(redis.url, logger);
    expect(await fleetReady(fleet)).toBe(true);
    const { emulator, platform } = await stack(fleet);

    const calls = Array.from({ length: 60 }, (_, n) => platform.request("GET", `/courses/storm-${n}`).then(() => "ok", (e: { status?: number }) => (e.status === 404 ? "ok" : `failed ${e.status}`)));
    // Let the shared budget admit its first window, and the rest reserve their slots.
    while (emulator.requests.length < LIMIT) await new Promise((r) => setTimeout(r, 10));
    expect(fleet.rateBudget.stats().mode).toBe("shared");
    await redis.stop();
    const killedAt = Date.now();

    const outcomes = await Promise.all(calls);
    expect(outcomes).toEqual(Array(60).fill("ok"));
    expect(fleet.rateBudget.stats().mode).toBe("fallback");
    const after = emulator.requests.filter((r) => r.at > killedAt);
    expect(after.length).toBeGreaterThanOrEqual(60 - LIMIT - 20); // most of the storm ran on the fallback
    // The fallback allows LIMIT ÷ INSTANCES per window (it counts from each answer, as the shared one does).
    expect(maxInAnyWindow(after.map((r) => r.at), WINDOW_MS)).toBeLessThanOrEqual(LIMIT / INSTANCES);
    expect(lines(logger, "fleet_redis_down")).toHaveLength(1);
    expect(lines(logger, "fleet_redis_up")).toHaveLength(0);

    // Shared stores fall back too: nothing throws while Redis is gone.
    await fleet.preparedTokens.put("exam", "student", "tok", Date.now() + 60_000, "class");
    expect((await fleet.preparedTokens.take("exam", "student", "class"))?.token).toBe("tok");
    const ticket = await fleet.attempts.begin("exam", "student");
    expect(ticket.lease).toBeDefined();

    redis = await startRedisServer(port);
    expect(await fleetReady(fleet, 10_000)).toBe(true);
    await platform.request("GET", "/courses/after").catch(() => undefined);
    expect(fleet.rateBudget.stats().mode).toBe("shared");
    // The call after recovery went through Redis: the shared window of the client's key holds it.
    expect((await fleet.rateBudget.forKey(keyHash(TEST_KEY)).sharedStats()).sentInWindow).toBeGreaterThanOrEqual(1);
    expect(lines(logger, "fleet_redis_down")).toHaveLength(1);
    expect(lines(logger, "fleet_redis_up")).toHaveLength(1);

    // The attempt begun while Redis was gone ends where it began, Redis back or not: its
    // token is stored and claimed (sent to Redis, which never saw the attempt, it was lost).
    expect(await fleet.attempts.complete(ticket.waitId, ticket.lease!, { kind: "token", token: "issued-while-down" })).toBe(true);
    expect(await fleet.attempts.view(ticket.waitId, "exam", "student")).toMatchObject({ state: "done", outcome: "token" });
    expect(await fleet.attempts.claim(ticket.waitId, "exam", "student")).toEqual({ kind: "token", token: "issued-while-down" });
    // A new attempt begins in Redis again.
    const next = await fleet.attempts.begin("exam", "other-student");
    expect(await fleet.attempts.complete(next.waitId, next.lease!, { kind: "token", token: "shared" })).toBe(true);
  }, 120_000);

  it("unreachable from the start: the fleet starts, calls run on the fallback at once, one log line", async () => {
    const logger = captureLogger();
    const fleet = fleetOn(`redis://127.0.0.1:${await freePort()}`, logger);
    const { emulator, platform } = await stack(fleet);
    const started = Date.now();
    const outcomes = await Promise.all(Array.from({ length: 7 }, (_, n) => platform.request("GET", `/courses/cold-${n}`).then(() => "ok", (e: { status?: number }) => (e.status === 404 ? "ok" : "failed"))));
    expect(outcomes).toEqual(Array(7).fill("ok"));
    // 7 calls on a fallback of 5 per window: the last two wait about a window, not for Redis.
    expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_MS * 0.8);
    expect(maxInAnyWindow(emulator.requests.map((r) => r.at), WINDOW_MS)).toBeLessThanOrEqual(LIMIT / INSTANCES);
    await new Promise((r) => setTimeout(r, 1500)); // reconnect attempts go on in the background
    expect(fleet.shared).toBe(false);
    expect(lines(logger, "fleet_redis_down")).toHaveLength(1);
  }, 60_000);
});
