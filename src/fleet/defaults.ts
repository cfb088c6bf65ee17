/**
 * The fleet's defaults, written once: the in-process fleet, `redisFleet`'s option check and
 * the launch attempts read them here (the launch limit's and the circuit breaker's live
 * beside their settings types: `DEFAULT_LAUNCH_LIMIT`, `DEFAULT_BREAKER_SETTINGS`).
 */
export const FLEET_DEFAULTS = Object.freeze({
  /** The attempt owner's lease, ms: renewed every third of it while its call runs. */
  attemptLeaseMs: 10_000,
  /** How long an attempt's outcome stays readable, ms. */
  outcomeTtlMs: 120_000,
  /** Claims of one token outcome within this long of the first get the token too (a double click), ms. */
  claimGraceMs: 5_000,
  /** The plan leader's lease, ms. */
  planLeaseMs: 15_000,
  /** How long a plan's progress and per-student marks stay readable after their last change, ms. */
  planProgressTtlMs: 6 * 60 * 60_000,
  /** `redisFleet`: how many instances share the key (the fallback budget is the limit divided by it). */
  expectedInstances: 4,
  /** `redisFleet`: the platform's window, ms. */
  rateWindowMs: 60_000,
  /** `redisFleet`: calls in flight at once per instance. */
  maxConcurrency: 16,
  /** `redisFleet`: the share of the window normal calls keep while launches wait. */
  launchShare: 0.2,
  /** `redisFleet`: a Redis command slower than this counts as Redis down, ms. */
  commandTimeoutMs: 500,
  /** `redisFleet`: the first segment of every Redis key. */
  prefix: "eoa",
});
