/**
 * An instance whose Redis is out of reach runs on its fallback: its share of the key's
 * limit (1 ÷ expectedInstances), so that the instances together stay within it. Here
 * `rateLimitPerMinute` is left unset, so the key's limit is its environment's default
 * (dev: 60), which the platform's stated `X-RateLimit-Limit` replaces, and the fallback
 * takes its share of the stated limit too: below its share of the default (each instance
 * took the whole stated limit before: two instances sent twice the limit in a window) and
 * above it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { redisFleet } from "../../src/fleet/index.js";
import { createPlatformClient } from "../../src/platform/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { TEST_KEY } from "../support/keys.js";
import { freePort, randomPrefix, SECRET } from "../support/redis.js";
import { maxInAnyWindow } from "../../bench/lib/windows.js";
import { silentLogger } from "../../src/core/logger.js";

const WINDOW_MS = 1000;
const INSTANCES = 2;

describe("a fallback's share of the limit the platform states (rateLimitPerMinute unset)", () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

  /** One instance whose Redis never answers, on an emulator that states `stated` per window. */
  async function instance(stated: number) {
    const fleet = redisFleet({ url: `redis://127.0.0.1:${await freePort()}`, secret: SECRET, prefix: randomPrefix("share"), rateWindowMs: WINDOW_MS, expectedInstances: INSTANCES, commandTimeoutMs: 200, logger: silentLogger });
    const emulator = await startEmulator({ testKeys: [TEST_KEY], rateLimits: { dev: stated, windowMs: WINDOW_MS } });
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: fleet.rateBudget, maxRetries: 0, deadlineMs: 30_000 });
    cleanups.push(() => fleet.close(), () => emulator.close(), () => platform.close());
    const budget = fleet.rateBudget.forKey(keyHash(TEST_KEY));
    const call = (n: number) => platform.request("GET", `/courses/share-${n}`).then(() => "ok", (e: { status?: number }) => (e.status === 404 ? "ok" : `failed ${e.status}`));
    return { emulator, budget, call };
  }

  it("a stated limit under its share of the default: half of the stated 10 per window, not all of it", async () => {
    const { emulator, budget, call } = await instance(10);
    expect(await call(0)).toBe("ok"); // the answer states the limit
    expect(budget.stats()).toMatchObject({ mode: "fallback", limit: 5 });
    const outcomes = await Promise.all(Array.from({ length: 11 }, (_, n) => call(n + 1)));
    expect(outcomes).toEqual(Array(11).fill("ok"));
    expect(maxInAnyWindow(emulator.requests.map((r) => r.at), WINDOW_MS)).toBeLessThanOrEqual(10 / INSTANCES);
  }, 30_000);

  it("a stated limit over the default: half of the stated 100, as the shared window learns it whole", async () => {
    const { budget, call } = await instance(100);
    expect(budget.stats().limit).toBe(30); // half the dev default, before the platform said
    expect(await call(0)).toBe("ok");
    expect(budget.stats()).toMatchObject({ mode: "fallback", limit: 50 });
  }, 30_000);
});
