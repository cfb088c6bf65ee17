/**
 * `redisFleet(options)`: fleet mode. Several app instances share one API key's rate
 * budget, launch attempts, prepared tokens, pre-warm plan leases, per-student launch
 * limits and the platform's circuit breakers through one Redis. See docs/fleet.md and FleetSettings for the options.
 *
 * Start-up never waits for Redis: the factory returns at once (options are checked first,
 * all problems in one ConfigurationError), and each part uses its in-process fallback
 * until Redis answers. `close()` disconnects.
 */
import { randomBytes } from "node:crypto";
import { toLogger } from "../core/logger.js";
import { warnRenames } from "../core/deprecation.js";
import { createCipher } from "./cipher.js";
import { sealingKeys } from "./sealing-keys.js";
import { connect } from "./connection.js";
import { attemptsWithFallback } from "./attempts-fallback.js";
import { withFallback } from "./fallback.js";
import { inProcessFleet, type Fleet, type SharedBudget } from "./fleet.js";
import { defineLimiterScripts, redisLaunchLimiter } from "./redis-launch-limiter.js";
import { defineBreakerScripts, redisCircuitBreaker } from "./redis-circuit-breaker.js";
import { defineAttemptScripts, redisLaunchAttempts } from "./redis-launch-attempts.js";
import { definePlanScripts, redisPlanLeases } from "./redis-plan-lease.js";
import { redisPreparedTokens } from "./redis-prepared-tokens.js";
import { redisSingleUse } from "./redis-single-use.js";
import { redisRecentCounts } from "./redis-recent-counts.js";
import { refusals } from "./refused.js";
import { FLEET_RENAMES, readFleetOptions, type RedisFleetOptions } from "./options.js";
import { defineBudgetScripts } from "./rate-budget-commands.js";
import { SharedRateBudget } from "./redis-rate-budget.js";
import { keyLimitSettings } from "./shared-budget-settings.js";

export interface RedisFleet extends Fleet {
  readonly kind: "redis";
  readonly rateBudget: SharedBudget;
}

/** The budget fleet.rateBudget keys by until a client binds it to its key (`forKey`). */
const UNBOUND = "unbound";

export function redisFleet(options: RedisFleetOptions): RedisFleet {
  const settings = readFleetOptions(options);
  const logger = toLogger(options.logger);
  warnRenames(logger, "fleet_option_deprecated", options, FLEET_RENAMES);
  const cipher = createCipher(settings.keys);
  const refused = refusals(logger, cipher);
  const instanceId = randomBytes(9).toString("base64url");
  const connection = connect(settings.url, settings.commandTimeoutMs, logger, (redis) => {
    const define = (name: string, lua: string, keys: number): void => redis.defineCommand(name, { numberOfKeys: keys, lua });
    defineBudgetScripts(define);
    defineAttemptScripts(define);
    definePlanScripts(define);
    defineLimiterScripts(define);
    defineBreakerScripts(define);
  });
  const local = inProcessFleet(settings, instanceId);
  const prefix = settings.prefix;
  const attemptTimings = { leaseMs: settings.attemptLeaseMs, outcomeTtlMs: settings.outcomeTtlMs, claimGraceMs: settings.claimGraceMs };
  return {
    kind: "redis",
    rateBudget: new SharedRateBudget(connection, {
      prefix, ...keyLimitSettings(settings.rateLimitPerMinute, undefined), fleetLimit: settings.rateLimitPerMinute, windowMs: settings.rateWindowMs, maxConcurrency: settings.maxConcurrency,
      launchShare: settings.launchShare, normalShare: settings.normalShare, expectedInstances: settings.expectedInstances,
      nameKey: (keyHash) => cipher.windowName(keyHash), renamed: settings.keys.length > 1,
    }, UNBOUND),
    // Sticky: an attempt begun in process (Redis not reached yet, or down) ends there.
    attempts: attemptsWithFallback(redisLaunchAttempts(connection, cipher, refused, prefix, attemptTimings), local.attempts, connection, settings.outcomeTtlMs),
    preparedTokens: withFallback(redisPreparedTokens(connection, cipher, refused, prefix), local.preparedTokens, connection),
    planLeases: withFallback(redisPlanLeases(connection, cipher, refused, prefix, { leaseMs: settings.planLeaseMs, progressTtlMs: settings.planProgressTtlMs }), local.planLeases, connection),
    launchLimiter: withFallback(redisLaunchLimiter(connection, cipher, prefix, settings.launchLimit), local.launchLimiter, connection),
    limiter: (name, limits) => withFallback(redisLaunchLimiter(connection, cipher, `${prefix}:${name}`, limits), local.limiter(name, limits), connection),
    breaker: withFallback(redisCircuitBreaker(connection, cipher, prefix, settings.circuitBreaker), local.breaker, connection),
    // No fallback: a state put in Redis must be found by whichever instance the launch
    // reaches, and a local copy would let one value be taken twice.
    singleUse: redisSingleUse(connection, cipher, prefix),
    sealingKeys: (purpose) => sealingKeys(settings.keys, purpose),
    recentCounts: withFallback(redisRecentCounts(connection, prefix), local.recentCounts, connection),
    attemptLeaseMs: settings.attemptLeaseMs,
    planLeaseMs: settings.planLeaseMs,
    instanceId,
    get shared() { return connection.up; },
    close: () => connection.close(),
  };
}

/** Resolves true once the fleet reaches Redis, false after `timeoutMs`. For readiness probes and tests. */
export async function fleetReady(fleet: Fleet, timeoutMs = 5000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!fleet.shared && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return fleet.shared;
}
