/**
 * The fleet: what several app instances sharing one API key share. `inProcessFleet()` is
 * the zero-configuration default (one instance); `redisFleet()` shares it through Redis.
 * Both return the same shape, so the router takes either.
 */
import type { KeyLimit, RateBudget, RateBudgetStats } from "../platform/rate-budget.js";
import { inProcessLaunchAttempts, type LaunchAttemptStore } from "./launch-attempts.js";
import { DEFAULT_BREAKER_SETTINGS, type CircuitBreakerSettings, type CircuitBreakerStore } from "./circuit-breaker.js";
import { inProcessCircuitBreaker } from "./in-process-circuit-breaker.js";
import { DEFAULT_LAUNCH_LIMIT, inProcessLaunchLimiter, type LaunchLimiter, type LaunchLimitSettings } from "./launch-limiter.js";
import { FLEET_DEFAULTS } from "./options.js";
import { inProcessRecentCounts, type RecentCounts } from "./recent-counts.js";
import { inProcessPlanLeases, type PlanLeaseStore } from "./plan-lease.js";
import { inProcessPreparedTokens, type PreparedTokenStore } from "./prepared-tokens.js";
import { processSealingKeys, type SealingKey } from "./sealing-keys.js";
import { inProcessSingleUse, type SingleUseStore } from "./single-use.js";

export interface FleetRateBudgetStats extends RateBudgetStats {
  /** `shared` while Redis answers; `fallback` while this instance runs on its own share. */
  mode: "shared" | "fallback";
}

/** The shared budget's public face (no Redis client types, so apps without ioredis type-check). */
export interface SharedBudget extends RateBudget {
  /** The budget of one API key, by its hash, with the limit its client resolved: what `createPlatformClient` asks for. */
  forKey(keyHash: string, keyLimit?: KeyLimit): SharedBudget;
  stats(): FleetRateBudgetStats;
  /** Fleet-wide figures read from Redis now (throws while Redis is unreachable). */
  sharedStats(): Promise<{ sentInWindow: number; reserved: number; inFlight: number; pausedForMs: number; serverRemaining: number | undefined; windowMs: number; limit: number; launchesWaiting: number }>;
  /** Roughly how long a launch arriving now waits for a slot, `ahead` launches before it (429 pause included). */
  estimateWaitMs(ahead: number): number;
  /** ms between calls to use `share` of the rate evenly. */
  pacingIntervalMs(share: number): number;
}

export interface Fleet {
  /** `"redis"` or `"in-process"`. */
  readonly kind: "redis" | "in-process";
  /**
   * The key's rate budget shared by every instance, or undefined in process (a client keeps
   * its own window there). The router gives it to the platform client: `oralAssessments({
   * platform, fleet })` is the one wiring point.
   */
  readonly rateBudget: RateBudget | undefined;
  readonly attempts: LaunchAttemptStore;
  readonly preparedTokens: PreparedTokenStore;
  readonly planLeases: PlanLeaseStore;
  readonly launchLimiter: LaunchLimiter;
  /**
   * A token-bucket limiter of its own (the same arithmetic as `launchLimiter`, with these
   * settings; `name` keeps its keys apart from every other's), fleet-wide in fleet mode: the
   * LTI login's limit per client address. Call it once per name.
   */
  limiter(name: string, settings: LaunchLimitSettings): LaunchLimiter;
  /** The platform's circuit breakers (one per key and endpoint): open, no call is sent. */
  readonly breaker: CircuitBreakerStore;
  /** Single-use values with a life of their own (used LTI nonces, "open the exam" links). */
  readonly singleUse: SingleUseStore;
  /**
   * Keys to seal a value the fleet hands out rather than keeps (the LTI login's state):
   * derived from the fleet's `secret` in fleet mode, so any instance opens it; random per
   * process in process. The first key seals; every listed one opens (sealing-keys.ts).
   */
  sealingKeys(purpose: string): readonly SealingKey[];
  /** Counts of the last minutes, fleet-wide (the platform's 429s and errors for the live view). */
  readonly recentCounts: RecentCounts;
  /** The attempt owner's lease, ms: the owner renews it every third of it while its call runs. */
  readonly attemptLeaseMs: number;
  /** The plan leader's lease, ms. */
  readonly planLeaseMs: number;
  /** This instance's name in leases (random per process). */
  readonly instanceId: string;
  /** True while the shared state is reachable (always true in process). */
  readonly shared: boolean;
  close(): Promise<void>;
}

export interface InProcessFleetOptions {
  /** Default 10 000. */
  attemptLeaseMs?: number;
  /** Default 120 000. */
  outcomeTtlMs?: number;
  /** Claims of one token outcome within this long of the first get the token too (a double click), ms. Default 5 000. */
  claimGraceMs?: number;
  /** Default 15 000. */
  planLeaseMs?: number;
  /** Default `{ burst: 3, refillMs: 60 000, failureBackoffMs: 2 000, maxFailureBackoffMs: 60 000 }` (see `LaunchLimitSettings`). */
  launchLimit?: Partial<LaunchLimitSettings>;
  /** Default `{ minFailures: 5, failureRatio: 0.5, windowMs: 30 000, openMs: 15 000, probeLeaseMs: 30 000 }` (see `CircuitBreakerSettings`). */
  circuitBreaker?: Partial<CircuitBreakerSettings>;
}

/** Buckets a named limiter (`Fleet.limiter`) keeps in process at most: its keys come from requests (client addresses). */
const NAMED_LIMITER_KEYS = 50_000;

/** `defaults` with every field of `given` that is set. */
function withDefaults<T extends object>(defaults: Readonly<T>, given: Partial<T> | undefined): T {
  const result = { ...defaults };
  for (const [name, value] of Object.entries(given ?? {})) if (value !== undefined) (result as Record<string, unknown>)[name] = value;
  return result;
}


export function inProcessFleet(options: InProcessFleetOptions = {}, instanceId = "local"): Fleet {
  const d = FLEET_DEFAULTS;
  const attemptLeaseMs = options.attemptLeaseMs ?? d.attemptLeaseMs;
  const planLeaseMs = options.planLeaseMs ?? d.planLeaseMs;
  return {
    kind: "in-process",
    // One instance: the client's own window is the whole budget; a second one nothing reads would mislead.
    rateBudget: undefined,
    attempts: inProcessLaunchAttempts({ leaseMs: attemptLeaseMs, outcomeTtlMs: options.outcomeTtlMs ?? d.outcomeTtlMs, claimGraceMs: options.claimGraceMs ?? d.claimGraceMs }),
    preparedTokens: inProcessPreparedTokens(),
    planLeases: inProcessPlanLeases({ leaseMs: planLeaseMs, progressTtlMs: FLEET_DEFAULTS.planProgressTtlMs }),
    launchLimiter: inProcessLaunchLimiter(withDefaults(DEFAULT_LAUNCH_LIMIT, options.launchLimit)),
    limiter: (_name, settings) => inProcessLaunchLimiter(settings, Date.now, NAMED_LIMITER_KEYS),
    breaker: inProcessCircuitBreaker(withDefaults(DEFAULT_BREAKER_SETTINGS, options.circuitBreaker)),
    singleUse: inProcessSingleUse(),
    sealingKeys: processSealingKeys(),
    recentCounts: inProcessRecentCounts(),
    attemptLeaseMs,
    planLeaseMs,
    instanceId,
    shared: true,
    async close() {},
  };
}
