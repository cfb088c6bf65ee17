/**
 * The rate budget's interface: what every platform call asks before it is sent. The
 * in-process implementation is `rate-budget.ts`; a shared one (Redis, `src/fleet/`)
 * implements the same members, so several instances can share one key's window.
 */
import type { RequestPriority } from "./request-options.js";

/** Lets the next call go; call it once the response (or failure) is in. */
export type ReleaseFn = () => void;

/** Rate-limit facts a response carried. Times are ms since the epoch. */
export interface RateLimitObservation {
  limit?: number;
  remaining?: number;
  resetAt?: number;
}

export interface RateBudgetStats {
  /** Requests allowed per window (the lower of the configured and the platform-reported limit). */
  limit: number;
  windowMs: number;
  maxConcurrency: number;
  /** Calls waiting to be sent, per priority. */
  queued: Record<RequestPriority, number>;
  inFlight: number;
  /** Requests sent whose window has not yet passed (in flight ones included). */
  sentInWindow: number;
  /** Requests let through since the budget was made. */
  totalSent: number;
  /** Until when a 429 holds every call (ms since epoch), if it still does. */
  pausedUntil: number | undefined;
  /** What the platform last said remains (minus what we sent since), until its reset. */
  serverRemaining: number | undefined;
}

export interface RateBudget {
  /**
   * Resolves when the call may be sent. Rejects with `signal.reason` if the signal aborts
   * first (the call then no longer holds a place in the queue).
   */
  acquire(priority: RequestPriority, signal?: AbortSignal): Promise<ReleaseFn>;
  /**
   * Optional: the call may go now (nobody waits, nothing blocks): its release function,
   * as `acquire` would resolve with; otherwise undefined, and the caller uses `acquire`.
   * Lets a call admitted at once skip the abort signal and timer a wait would need.
   */
  tryAcquire?(priority: RequestPriority): ReleaseFn | undefined;
  /**
   * Feeds the rate-limit headers of a response. `call`: the release function `acquire`
   * gave the call that brought them (not released yet), so a shared budget can tell which
   * calls in flight were sent after it (the platform's Remaining cannot count those yet).
   */
  observe(observation: RateLimitObservation, call?: ReleaseFn): void;
  /** Holds every call until `untilMs` (ms since epoch): the platform answered 429. */
  pause(untilMs: number): void;
  stats(): RateBudgetStats;
  /** Optional: `stats().pausedUntil` alone, read before every attempt (else `stats()` is). */
  pausedUntilMs?(): number | undefined;
  /**
   * Roughly how long a call queued now at launch priority, behind `ahead` calls queued
   * before it, waits before it is sent, ms: the calls already in the window plus those
   * ahead, in whole windows, plus what remains of a 429 pause. An estimate for deciding
   * whether to hold a browser request or answer with a waiting page at once, not a promise.
   * A shared budget answers for every process using the key.
   */
  estimateWaitMs(ahead: number): number;
  /**
   * The even spacing, ms, at which a background caller using `share` (0 < share ≤ 1) of
   * the budget's rate should start calls: `windowMs / (limit × share)`. Pre-warming paces
   * itself with it instead of bursting a window's worth of calls ahead of live launches.
   */
  pacingIntervalMs(share: number): number;
  /**
   * Optional: the budget for one API key, given the key's hash (`keyHash`) and the limit
   * the client resolved for it (`rateLimitPerMinute`, defaulted by the key's environment).
   * A shared (fleet) budget keys its window by the hash; `createPlatformClient` calls it once.
   */
  forKey?(keyHash: string, limit?: KeyLimit): RateBudget;
}

/** The limit a client resolved for its key, handed to a shared budget's `forKey`. */
export interface KeyLimit {
  /** Requests per window. */
  perWindow: number;
  /** True when the integrator set it (`rateLimitPerMinute`); false when it is the key environment's default (dev 60, prod 600). */
  stated: boolean;
}
