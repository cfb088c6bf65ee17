/**
 * Every fleet interface's contract, run against the in-process default and the Redis
 * implementation (two fleets on one prefix = two app instances). Redis at 127.0.0.1:6379
 * (or EOA_TEST_REDIS_URL), a random prefix for this file.
 */
import { afterAll } from "vitest";
import { inProcessCircuitBreaker } from "../../src/fleet/in-process-circuit-breaker.js";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import { inProcessLaunchAttempts } from "../../src/fleet/launch-attempts.js";
import { inProcessLaunchLimiter } from "../../src/fleet/launch-limiter.js";
import { inProcessPlanLeases } from "../../src/fleet/plan-lease.js";
import { inProcessPreparedTokens } from "../../src/fleet/prepared-tokens.js";
import { createRateBudget } from "../../src/platform/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { describeAttemptsContract } from "./contracts/attempts-contract.js";
import { describeBreakerContract } from "./contracts/breaker-contract.js";
import { describeBudgetContract } from "./contracts/budget-contract.js";
import { describeLimiterContract } from "./contracts/limiter-contract.js";
import { fakeClock, realClock, TIMINGS, type Pair } from "./contracts/pair.js";
import { describePlanContract } from "./contracts/plan-contract.js";
import { describeTokensContract } from "./contracts/tokens-contract.js";

const prefix = randomPrefix("contracts");
const available = await redisOrSkip("the fleet contracts on Redis");
afterAll(() => dropPrefix(prefix));

// A generous command timeout: on a loaded machine a slow reply would (rightly) switch an instance to its fallback.
const timings = { commandTimeoutMs: 3000, ...TIMINGS };

/** One in-process store on a fake clock: what lapses does so when the test says, not when the machine gets round to it. */
const inProcess = <T>(build: (now: () => number) => T) => async (): Promise<Pair<T>> => {
  const clock = fakeClock();
  const store = build(clock.now);
  return { a: store, b: store, clock, close: async () => {} };
};
const { attemptLeaseMs: leaseMs, outcomeTtlMs, claimGraceMs, planLeaseMs } = TIMINGS;

let budgets = 0;
const onRedis = <T>(pick: (f: ReturnType<typeof redisFleet>) => T, extra: Partial<Parameters<typeof redisFleet>[0]> = {}) => async (): Promise<Pair<T>> => {
  const make = () => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, ...timings, ...extra });
  const one = make();
  const two = make();
  await Promise.all([fleetReady(one), fleetReady(two)]);
  return { a: pick(one), b: pick(two), clock: realClock, close: async () => { await one.close(); await two.close(); } };
};

describeAttemptsContract("in process", inProcess((now) => inProcessLaunchAttempts({ leaseMs, outcomeTtlMs, claimGraceMs }, now)));
describeTokensContract("in process", inProcess((now) => inProcessPreparedTokens(now)));
describePlanContract("in process", inProcess((now) => inProcessPlanLeases({ leaseMs: planLeaseMs, progressTtlMs: 60 * 60_000 }, now)));
describeLimiterContract("in process", inProcess((now) => inProcessLaunchLimiter(TIMINGS.launchLimit, now)));
describeBreakerContract("in process", inProcess((now) => inProcessCircuitBreaker(TIMINGS.circuitBreaker, now)));
describeBudgetContract("in process", async (limit, { windowMs = 1000, normalShare } = {}) => {
  const budget = createRateBudget({ limit, windowMs, ...(normalShare === undefined ? {} : { normalShare }) });
  return { a: budget, b: budget, clock: realClock, sync: async () => {}, close: async () => {} };
});

if (available) {
  describeAttemptsContract("Redis", onRedis((f) => f.attempts));
  describeTokensContract("Redis", onRedis((f) => f.preparedTokens));
  describePlanContract("Redis", onRedis((f) => f.planLeases));
  describeLimiterContract("Redis", onRedis((f) => f.launchLimiter));
  describeBreakerContract("Redis", onRedis((f) => f.breaker));
  describeBudgetContract("Redis", async (limit, { windowMs = 1000, normalShare } = {}) => {
    // Each test its own API key (hash), as two clients of one key would bind it.
    const hash = keyHash(`contract-key-${++budgets}-${prefix}`);
    const pair = await onRedis((f) => f.rateBudget.forKey(hash), { rateLimitPerMinute: limit, rateWindowMs: windowMs, ...(normalShare === undefined ? {} : { normalShare }) })();
    // One connection answers in order: once `a` hears back from Redis, what it wrote before is there for `b`.
    return { ...pair, sync: async () => { await pair.a.sharedStats(); } };
  });
}
