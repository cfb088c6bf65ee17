/**
 * Pace at the platform's real window (issue part 3): the emulator resets every second
 * while the client believes in a 60 s window. Both budgets (in process and shared) learn
 * the real window from X-RateLimit-Remaining/Reset and pace at it: 40 calls at 10 per
 * window finish in seconds (paced as a minute they would take 3 minutes), never more
 * than 10 in any 1 s window, no 429. A platform whose window really is a minute is not
 * mistaken for a short one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { fleetReady, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { createPlatformClient, type PlatformClient, type PlatformClientOptions } from "../../src/platform/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { TEST_KEY } from "../support/keys.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { maxInAnyWindow } from "../../bench/lib/windows.js";

const available = await redisOrSkip("the fleet real-window tests");
const prefix = randomPrefix("window");
const LIMIT = 10;

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

async function emulatorWithWindow(windowMs: number): Promise<Emulator> {
  const emulator = await startEmulator({ testKeys: [TEST_KEY], rateLimits: { dev: LIMIT, windowMs } });
  cleanups.push(() => emulator.close());
  return emulator;
}
function client(emulator: Emulator, extra: Partial<PlatformClientOptions>): PlatformClient {
  const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateLimitPerMinute: LIMIT, rateWindowMs: 60_000, maxRetries: 0, deadlineMs: 120_000, ...extra });
  cleanups.push(() => platform.close());
  return platform;
}
async function fleet(): Promise<RedisFleet> {
  const made = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, rateLimitPerMinute: LIMIT, rateWindowMs: 60_000 });
  cleanups.push(() => made.close());
  await fleetReady(made);
  return made;
}

async function storm(emulator: Emulator, platform: PlatformClient, calls: number) {
  const started = Date.now();
  await Promise.all(Array.from({ length: calls }, () => platform.courses.list()));
  const elapsed = Date.now() - started;
  const statuses = emulator.requests.map((r) => r.status);
  return { elapsed, statuses, busiest: maxInAnyWindow(emulator.requests.map((r) => r.at), 1000) };
}

describe("a platform resetting every second, a client believing in 60 s", () => {
  it("in process: paces at the platform's real window", async () => {
    const emulator = await emulatorWithWindow(1000);
    const platform = client(emulator, {});
    const { elapsed, statuses, busiest } = await storm(emulator, platform, 40);
    expect(statuses).toEqual(Array(40).fill(200));
    expect(busiest).toBeLessThanOrEqual(LIMIT);
    expect(elapsed).toBeLessThan(30_000); // a 60 s pace needs 180 s
    expect(platform.rateStats().windowMs).toBeGreaterThanOrEqual(1000);
    expect(platform.rateStats().windowMs).toBeLessThanOrEqual(2000);
  }, 60_000);

  it.runIf(available)("shared (Redis): paces at the real window, and other instances learn it", async () => {
    const emulator = await emulatorWithWindow(1000);
    const one = await fleet();
    const platform = client(emulator, { rateBudget: one.rateBudget });
    const { elapsed, statuses, busiest } = await storm(emulator, platform, 40);
    expect(statuses).toEqual(Array(40).fill(200));
    expect(busiest).toBeLessThanOrEqual(LIMIT);
    expect(elapsed).toBeLessThan(30_000);
    // Another instance that never saw a response paces at it too.
    const two = await fleet();
    const shared = await two.rateBudget.forKey(keyHash(TEST_KEY)).sharedStats();
    expect(shared.windowMs).toBeGreaterThanOrEqual(1000);
    expect(shared.windowMs).toBeLessThanOrEqual(2000);
  }, 60_000);

  it("a platform whose window really is a minute keeps the minute", async () => {
    const emulator = await emulatorWithWindow(60_000);
    const platform = client(emulator, {});
    await storm(emulator, platform, LIMIT);
    expect(platform.rateStats().windowMs).toBe(60_000);
  });
});


import { afterAll } from "vitest";
afterAll(() => dropPrefix(prefix));
