/**
 * One name and one default for the platform's rate limit (issue 29, part 1): the fleet's
 * shared budget plans each key at its environment's limit (a live key 600 per window, a
 * test key 60), as the client does; a limit the platform states in X-RateLimit-Limit
 * replaces a default (higher too), and only narrows a limit the integrator set; the old
 * option name `rateLimit` still works, with a warning.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { fleetReady, redisFleet, type RedisFleet, type RedisFleetOptions } from "../../src/fleet/index.js";
import { createPlatformClient, type PlatformClient, type PlatformClientOptions } from "../../src/platform/index.js";
import { onFleetBudget } from "../../src/platform/budget-binding.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const available = await redisOrSkip("the fleet key-limit tests");
const prefix = randomPrefix("keylimit");

const cleanups: (() => unknown)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

async function emulator(rateLimits: { dev?: number; prod?: number } = {}): Promise<Emulator> {
  const made = await startEmulator({ testKeys: [TEST_KEY], liveKeys: [LIVE_KEY], rateLimits });
  cleanups.push(() => made.close());
  return made;
}
async function fleet(options: Partial<RedisFleetOptions> = {}): Promise<RedisFleet> {
  const made = redisFleet({ url: REDIS_URL, secret: SECRET, prefix: `${prefix}-${cleanups.length}`, commandTimeoutMs: 3_000, ...options });
  cleanups.push(async () => { await made.close(); await dropPrefix(`${prefix}-${cleanups.length}`); });
  expect(await fleetReady(made)).toBe(true);
  return made;
}
function client(platform: Emulator, options: Partial<PlatformClientOptions>): PlatformClient {
  const made = createPlatformClient({ apiKey: TEST_KEY, baseUrl: platform.url, maxRetries: 0, ...options });
  cleanups.push(() => made.close());
  return made;
}

describe.runIf(available)("the platform's rate limit on a Redis fleet", () => {
  it("a live key with default options plans 600 per window, fleet-wide (the router's wiring: the app's client rebuilt on the fleet's budget)", async () => {
    const platform = await emulator();
    const shared = await fleet();
    const own = client(platform, { apiKey: LIVE_KEY });
    const answer = onFleetBudget(own, shared.rateBudget);
    if (answer.kind !== "rebuilt") throw new Error(`expected a rebuilt client, got ${answer.kind}`);
    cleanups.push(() => answer.client.close());
    expect(answer.client.rateStats().limit).toBe(600);
    expect((await shared.rateBudget.forKey(keyHash(LIVE_KEY)).sharedStats()).limit).toBe(600);
    // After a call the platform stated its own limit (the emulator's prod limit, 600): still 600.
    await answer.client.courses.list();
    expect((await shared.rateBudget.forKey(keyHash(LIVE_KEY)).sharedStats()).limit).toBe(600);
  });

  it("a test key plans 60 per window", async () => {
    const platform = await emulator();
    const shared = await fleet();
    const made = client(platform, { rateBudget: shared.rateBudget });
    expect(made.rateStats().limit).toBe(60);
    expect((await shared.rateBudget.forKey(keyHash(TEST_KEY)).sharedStats()).limit).toBe(60);
  });

  it("a default limit follows a HIGHER limit the platform states; one the app set is only narrowed", async () => {
    const platform = await emulator({ dev: 120 });
    const shared = await fleet();
    const learning = client(platform, { rateBudget: shared.rateBudget });
    await learning.courses.list();
    expect(learning.rateStats().limit).toBe(120);
    expect((await shared.rateBudget.forKey(keyHash(TEST_KEY)).sharedStats()).limit).toBe(120);

    const other = await fleet();
    const chosen = client(platform, { rateBudget: other.rateBudget, rateLimitPerMinute: 30 });
    await chosen.courses.list();
    expect(chosen.rateStats().limit).toBe(30);
    expect((await other.rateBudget.forKey(keyHash(TEST_KEY)).sharedStats()).limit).toBe(30);
  });

  it("the fleet's rateLimitPerMinute is every key's limit; the old name rateLimit still works and warns once", async () => {
    const platform = await emulator();
    const set = await fleet({ rateLimitPerMinute: 100 });
    const live = client(platform, { apiKey: LIVE_KEY, rateBudget: set.rateBudget });
    expect(live.rateStats().limit).toBe(100);

    const warnings: string[] = [];
    const listen = (w: Error) => warnings.push(w.message);
    process.on("warning", listen);
    cleanups.push(() => process.off("warning", listen));
    const logged: string[] = [];
    const old = await fleet({ rateLimit: 40, logger: { warn: (_o: object, m: string) => logged.push(m) } });
    await fleet({ rateLimit: 40 });
    const made = client(platform, { apiKey: LIVE_KEY, rateBudget: old.rateBudget });
    expect(made.rateStats().limit).toBe(40);
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.includes("rateLimitPerMinute"))).toHaveLength(1);
    expect(logged.some((m) => m.includes("rateLimitPerMinute"))).toBe(true);

    expect(() => redisFleet({ url: REDIS_URL, secret: SECRET, rateLimit: 40, rateLimitPerMinute: 40 })).toThrow(/rateLimit.*rateLimitPerMinute/s);
  });
});

describe("the platform's rate limit in process", () => {
  it("a default limit follows a higher stated limit; one the app set does not", async () => {
    const platform = await emulator({ dev: 120 });
    const learning = client(platform, {});
    await learning.courses.list();
    expect(learning.rateStats().limit).toBe(120);
    const chosen = client(platform, { rateLimitPerMinute: 30 });
    await chosen.courses.list();
    expect(chosen.rateStats().limit).toBe(30);
  });
});
