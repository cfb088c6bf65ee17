/**
 * Every fleet interface's contract, run against the in-process default and the Redis
 * implementation (two fleets on one prefix = two app instances). Redis at 127.0.0.1:6379
 * (or EOA_TEST_REDIS_URL), a random prefix for this file.
 */
import { afterAll } from "vitest";
import { fleetReady, inProcessFleet, redisFleet, type Fleet } from "../../src/fleet/index.js";
import { createRateBudget } from "../../src/platform/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { describeAttemptsContract } from "./contracts/attempts-contract.js";
import { describeBreakerContract } from "./contracts/breaker-contract.js";
import { describeBudgetContract } from "./contracts/budget-contract.js";
import { describeLimiterContract } from "./contracts/limiter-contract.js";
import type { Pair } from "./contracts/pair.js";
import { describePlanContract } from "./contracts/plan-contract.js";
import { describeTokensContract } from "./contracts/tokens-contract.js";

const prefix = randomPrefix("contracts");
const available = await redisOrSkip("the fleet contracts on Redis");
afterAll(() => dropPrefix(prefix));

// A generous command timeout: on a loaded machine a slow reply would (rightly) switch an instance to its fallback.
const timings = { commandTimeoutMs: 3000, attemptLeaseMs: 300, outcomeTtlMs: 2000, claimGraceMs: 300, planLeaseMs: 300,
  launchLimit: { burst: 3, refillMs: 400, failureBackoffMs: 300, maxFailureBackoffMs: 1_200 },
  circuitBreaker: { minFailures: 3, failureRatio: 0.5, windowMs: 10_000, openMs: 1_000, probeLeaseMs: 1_500 } };

const inProcess = <T>(pick: (f: Fleet) => T) => async (): Promise<Pair<T>> => {
  const fleet = inProcessFleet(timings);
  return { a: pick(fleet), b: pick(fleet), close: () => fleet.close() };
};

let budgets = 0;
const onRedis = <T>(pick: (f: ReturnType<typeof redisFleet>) => T, extra: Partial<Parameters<typeof redisFleet>[0]> = {}) => async (): Promise<Pair<T>> => {
  const make = () => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, ...timings, ...extra });
  const one = make();
  const two = make();
  await Promise.all([fleetReady(one), fleetReady(two)]);
  return { a: pick(one), b: pick(two), close: async () => { await one.close(); await two.close(); } };
};

describeAttemptsContract("in process", inProcess((f) => f.attempts));
describeTokensContract("in process", inProcess((f) => f.preparedTokens));
describePlanContract("in process", inProcess((f) => f.planLeases));
describeLimiterContract("in process", inProcess((f) => f.launchLimiter));
describeBreakerContract("in process", inProcess((f) => f.breaker));
describeBudgetContract("in process", async (limit, options) => {
  const budget = createRateBudget({ limit, windowMs: 1000, ...options });
  return { a: budget, b: budget, close: async () => {} };
});

if (available) {
  describeAttemptsContract("Redis", onRedis((f) => f.attempts));
  describeTokensContract("Redis", onRedis((f) => f.preparedTokens));
  describePlanContract("Redis", onRedis((f) => f.planLeases));
  describeLimiterContract("Redis", onRedis((f) => f.launchLimiter));
  describeBreakerContract("Redis", onRedis((f) => f.breaker));
  describeBudgetContract("Redis", (limit, options) => {
    // Each test its own API key (hash), as two clients of one key would bind it.
    const hash = keyHash(`contract-key-${++budgets}-${prefix}`);
    return onRedis((f) => f.rateBudget.forKey(hash), { rateLimit: limit, rateWindowMs: 1000, ...options })();
  });
}
