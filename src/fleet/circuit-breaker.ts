/**
 * A circuit breaker for one platform endpoint of one API key: when the platform fails for
 * many students it opens, and calls are refused without being sent until a probe shows
 * the platform answers again. This file is the state machine alone, as pure functions on
 * a plain record; `in-process-circuit-breaker.ts` keeps records in memory and
 * `redis-circuit-breaker.ts` runs the same arithmetic in Lua on Redis's clock, so every
 * instance of a fleet sees one breaker.
 *
 * Why not `cockatiel` (a well-kept TypeScript resilience library with a breaker): its
 * `CircuitBreakerPolicy` keeps its state in the policy object of one process and times it
 * with that process's clock; it runs the guarded function itself, and `toJSON()` /
 * `initialState` are a snapshot to rebuild a breaker from (meant for serverless), not
 * state that several instances update atomically. Fleet mode needs the latter (one
 * half-open probe fleet-wide), so the machine is written once here and mirrored in Lua,
 * and both stores are tested against the same contract.
 *
 * States:
 * - `closed`: calls go. Their verdicts are counted over a sliding `windowMs` (two
 *   buckets, the previous one weighted by how much of it is still inside the window).
 *   At least `minFailures` failures that are at least `failureRatio` of the calls → open.
 * - `open`: every call is refused, told to come back when `openMs` has passed.
 * - `half_open`: after `openMs`, one caller (fleet-wide) gets a probe; the others are
 *   refused meanwhile. The probe's success closes the breaker, its failure opens it for
 *   another `openMs`. A probe that never reports (its instance died) lapses after
 *   `probeLeaseMs`, and the next caller probes instead.
 *
 * Verdicts: `failure` is the platform failing (5xx, timeouts, resets, unreadable answers,
 * our key refused); `success` is any answer that shows the platform works, including a
 * student's own 4xx (a full class is not an outage); `neutral` is a call that proves
 * nothing (aborted, never sent, rate limited): it is not counted, and a neutral probe
 * frees the probe for the next caller.
 */

export type BreakerVerdict = "success" | "failure" | "neutral";

export interface CircuitBreakerSettings {
  /** Failures within `windowMs` needed before the breaker opens. Default 5. */
  minFailures: number;
  /** Share of the calls within `windowMs` that must have failed for it to open (0 < ratio ≤ 1). Default 0.5. */
  failureRatio: number;
  /** The sliding window calls are counted over, ms. Default 30 000. */
  windowMs: number;
  /** How long the breaker stays open before a probe may go, ms. Default 15 000. */
  openMs: number;
  /** How long one probe may run before another caller may probe instead, ms. Default 30 000. */
  probeLeaseMs: number;
}

export const DEFAULT_BREAKER_SETTINGS: Readonly<CircuitBreakerSettings> = Object.freeze({
  minFailures: 5, failureRatio: 0.5, windowMs: 30_000, openMs: 15_000, probeLeaseMs: 30_000,
});

/**
 * While a probe runs, refused callers are told to come back within this long: a probe
 * usually takes one call's time, far less than its lease.
 */
export const PROBE_RETRY_MS = 5_000;

export type BreakerStateName = "closed" | "open" | "half_open";

/** One breaker's state. Times are ms on the store's clock. */
export interface BreakerRecord {
  state: BreakerStateName;
  /** Start of the current counting bucket. */
  bucketStart: number;
  failures: number;
  successes: number;
  /** The bucket before the current one. */
  previousFailures: number;
  previousSuccesses: number;
  /** `open`: when a probe may go. */
  openUntil: number;
  /** `half_open`: when the running probe's lease lapses (0: no probe running). */
  probeUntil: number;
}

export type BreakerAdmission =
  | { allowed: true; /** This call is the half-open probe: settle it, whatever happens. */ probe: boolean }
  | { allowed: false; /** ms until trying again is worth it. */ retryAfterMs: number; state: "open" | "half_open" };

/** What settling a call changed, for the one log line a transition deserves. */
export type BreakerTransition = "opened" | "closed" | undefined;

export function newBreakerRecord(now: number): BreakerRecord {
  return { state: "closed", bucketStart: now, failures: 0, successes: 0, previousFailures: 0, previousSuccesses: 0, openUntil: 0, probeUntil: 0 };
}

/** Moves the counting buckets forward to `now`. */
function roll(r: BreakerRecord, now: number, s: CircuitBreakerSettings): void {
  const elapsed = now - r.bucketStart;
  if (elapsed < s.windowMs) return;
  const buckets = Math.floor(elapsed / s.windowMs);
  r.previousFailures = buckets === 1 ? r.failures : 0;
  r.previousSuccesses = buckets === 1 ? r.successes : 0;
  r.failures = 0;
  r.successes = 0;
  r.bucketStart += buckets * s.windowMs;
}

/** Whether the failures counted in the sliding window are enough to open. */
function tripped(r: BreakerRecord, now: number, s: CircuitBreakerSettings): boolean {
  const weight = Math.max(0, 1 - (now - r.bucketStart) / s.windowMs);
  const failures = r.failures + r.previousFailures * weight;
  const calls = failures + r.successes + r.previousSuccesses * weight;
  return failures >= s.minFailures && failures >= s.failureRatio * calls;
}

function open(r: BreakerRecord, now: number, s: CircuitBreakerSettings): void {
  Object.assign(r, newBreakerRecord(now), { state: "open", openUntil: now + s.openMs });
}

/** May a call go now? Mutates `r` (open → half_open hands this caller the probe). */
export function admitCall(r: BreakerRecord, now: number, s: CircuitBreakerSettings): BreakerAdmission {
  if (r.state === "closed") return { allowed: true, probe: false };
  if (r.state === "open" && now < r.openUntil) return { allowed: false, retryAfterMs: r.openUntil - now, state: "open" };
  if (r.state === "half_open" && now < r.probeUntil) {
    return { allowed: false, retryAfterMs: Math.min(PROBE_RETRY_MS, r.probeUntil - now), state: "half_open" };
  }
  // Open long enough, or the running probe's lease lapsed: this caller probes.
  r.state = "half_open";
  r.probeUntil = now + s.probeLeaseMs;
  return { allowed: true, probe: true };
}

/** Counts a call's verdict. Mutates `r`. */
export function settleCall(r: BreakerRecord, verdict: BreakerVerdict, probe: boolean, now: number, s: CircuitBreakerSettings): BreakerTransition {
  if (r.state === "open") return undefined; // late answers of calls sent before it opened
  if (r.state === "half_open") {
    if (verdict === "success") {
      Object.assign(r, newBreakerRecord(now));
      return "closed";
    }
    if (!probe) return undefined;
    if (verdict === "failure") {
      open(r, now, s);
      return "opened";
    }
    r.probeUntil = 0; // a probe that proved nothing: the next caller probes
    return undefined;
  }
  if (verdict === "neutral") return undefined;
  roll(r, now, s);
  if (verdict === "success") r.successes += 1;
  else r.failures += 1;
  if (verdict === "failure" && tripped(r, now, s)) {
    open(r, now, s);
    return "opened";
  }
  return undefined;
}

/** What a breaker's state looks like from outside (tests, stats). */
export interface BreakerView {
  state: BreakerStateName;
  /** `open`: ms until a probe may go; 0 otherwise. */
  retryAfterMs: number;
}

export function viewOf(r: BreakerRecord | undefined, now: number): BreakerView {
  if (!r) return { state: "closed", retryAfterMs: 0 };
  return { state: r.state, retryAfterMs: r.state === "open" ? Math.max(0, r.openUntil - now) : 0 };
}

/**
 * The breakers of a fleet, one per scope (`breakerScope`): in process by default
 * (in-process-circuit-breaker.ts), shared in Redis in fleet mode (redis-circuit-breaker.ts).
 */
export interface CircuitBreakerStore {
  /** May a call in this scope go now? An allowed probe must be settled. */
  admit(scope: string): Promise<BreakerAdmission>;
  /** Counts the verdict of a call `admit` allowed. */
  settle(scope: string, verdict: BreakerVerdict, probe: boolean): Promise<BreakerTransition>;
  /** The scope's state now (counts nothing). */
  view(scope: string): Promise<BreakerView>;
}

/**
 * The name of one breaker: the organization (one per router today: `undefined`; a later
 * version serves several organizations from one router), the API key by its hash, and
 * the endpoint. Never the key itself.
 */
export function breakerScope(scope: { organization?: string | undefined; keyHash: string; endpoint: string }): string {
  return `${scope.organization ?? "-"}\u0000${scope.keyHash}\u0000${scope.endpoint}`;
}
