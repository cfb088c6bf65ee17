/**
 * A fair share per student: how many sign-in calls one student may cause per exam.
 *
 * - A token bucket per (exam, student): a burst of `burst`, then one more every
 *   `refillMs` (defaults: 3, then 1 per minute). Every sign-in call the student causes
 *   takes one, whether it issued a token or failed: a student whose calls fail (a full
 *   class, a platform error) cannot turn reloads into platform calls.
 * - A backoff after failed calls: after n failures in a row the student waits
 *   min(failureBackoffMs · 2^(n−1), maxFailureBackoffMs) (defaults 2 s, 60 s) before the
 *   next call; a token issued resets n. Meanwhile the launch shows the last failure's
 *   page again (stored here as `lastFailure`) with no call, saying when to try again.
 *
 * What does not count: prepared tokens, a double click's shared call, calls aborted
 * because the student left, and calls never sent (the rate budget's queue, an open
 * circuit breaker): none of them cost the key a call on the student's behalf.
 *
 * `inProcessLaunchLimiter()` is the zero-configuration default; redis-launch-limiter.ts
 * enforces the same arithmetic fleet-wide.
 */

export interface LaunchLimitDecision {
  allowed: boolean;
  /** When not allowed: ms until the next call is allowed (for `Retry-After`). 0 when allowed. */
  retryAfterMs: number;
  /** Calls the student may still cause right now (bucket only). */
  remaining: number;
  /** The student's last call failed (and no token was issued since): what it stored with `recordFailure`. */
  lastFailure?: string;
}

export interface LaunchLimiter {
  /** Whether the student may cause one more sign-in call now; counts nothing. */
  check(examId: string, userKey: string): Promise<LaunchLimitDecision>;
  /** Counts one token issued to the student (even past the limit: concurrent calls that all passed `check`); ends a failure streak. */
  record(examId: string, userKey: string): Promise<LaunchLimitDecision>;
  /** Counts one failed call and starts the next backoff; `failure` is shown again while it runs. */
  recordFailure(examId: string, userKey: string, failure: string): Promise<LaunchLimitDecision>;
}

export interface LaunchLimitSettings {
  /** Calls allowed at once. Default 3. */
  burst: number;
  /** One more call allowed every `refillMs`. Default 60 000. */
  refillMs: number;
  /** The wait after the first failed call in a row, doubling with each further one, ms. Default 2 000. */
  failureBackoffMs: number;
  /** The longest wait after failed calls, ms. Default 60 000. */
  maxFailureBackoffMs: number;
}

export const DEFAULT_LAUNCH_LIMIT: Readonly<LaunchLimitSettings> = Object.freeze({
  burst: 3, refillMs: 60_000, failureBackoffMs: 2_000, maxFailureBackoffMs: 60_000,
});

/** The bucket's arithmetic, shared in spirit with the Lua version (same formulas). */
export function refill(tokens: number, lastMs: number, now: number, s: LaunchLimitSettings): number {
  return Math.min(s.burst, tokens + Math.max(0, now - lastMs) / s.refillMs);
}

/** The wait after the `failures`-th failed call in a row. */
export function backoffMs(failures: number, s: LaunchLimitSettings): number {
  return failures <= 0 ? 0 : Math.min(s.failureBackoffMs * 2 ** (failures - 1), s.maxFailureBackoffMs);
}

/** The decision for a bucket holding `tokens`, with `backoffLeftMs` of a failure backoff still to run. */
export function decision(tokens: number, s: LaunchLimitSettings, backoffLeftMs = 0, lastFailure?: string): LaunchLimitDecision {
  const bucketWaitMs = tokens >= 1 ? 0 : Math.ceil((1 - tokens) * s.refillMs);
  const retryAfterMs = Math.max(bucketWaitMs, Math.ceil(backoffLeftMs));
  const result: LaunchLimitDecision = { allowed: retryAfterMs === 0, retryAfterMs, remaining: tokens >= 1 ? Math.floor(tokens) : 0 };
  if (lastFailure !== undefined) result.lastFailure = lastFailure;
  return result;
}

interface Bucket {
  tokens: number;
  at: number;
  /** Failed calls in a row. */
  failures: number;
  /** End of the current failure backoff. */
  backoffUntil: number;
  lastFailure: string | undefined;
}

/**
 * `maxKeys`: buckets kept at most (default: no limit; the router's per-student limiter is
 * bounded by the students). Past it, the least recently touched goes: it starts full again
 * if that key comes back, so a limiter short of memory errs on letting a request through.
 */
export function inProcessLaunchLimiter(settings: LaunchLimitSettings, now: () => number = Date.now, maxKeys = Infinity): LaunchLimiter {
  const buckets = new Map<string, Bucket>();
  const bucket = (examId: string, userKey: string) => {
    const key = `${examId}\u0000${userKey}`;
    const t = now();
    const b = buckets.get(key) ?? { tokens: settings.burst, at: t, failures: 0, backoffUntil: 0, lastFailure: undefined };
    b.tokens = refill(b.tokens, b.at, t, settings);
    b.at = t;
    // A failure streak is remembered for a longest backoff past its end, then starts afresh.
    if (b.failures > 0 && t >= b.backoffUntil + settings.maxFailureBackoffMs) Object.assign(b, { failures: 0, backoffUntil: 0, lastFailure: undefined });
    // A full bucket with no streak needs no memory.
    if (b.tokens < settings.burst || b.failures > 0) keep(key, b);
    else buckets.delete(key);
    return { b, key, t };
  };
  /** Last in the map's order (least recently touched first), within `maxKeys`. */
  const keep = (key: string, b: Bucket) => {
    buckets.delete(key);
    buckets.set(key, b);
    if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value!);
  };
  const decide = (b: Bucket, t: number) => decision(b.tokens, settings, Math.max(0, b.backoffUntil - t), b.failures > 0 ? b.lastFailure : undefined);
  const take = (examId: string, userKey: string) => {
    const taken = bucket(examId, userKey);
    taken.b.tokens = Math.max(-settings.burst, taken.b.tokens - 1);
    keep(taken.key, taken.b);
    return taken;
  };
  return {
    async check(examId, userKey) {
      const { b, t } = bucket(examId, userKey);
      return decide(b, t);
    },
    async record(examId, userKey) {
      const { b, t } = take(examId, userKey);
      Object.assign(b, { failures: 0, backoffUntil: 0, lastFailure: undefined });
      return decide(b, t);
    },
    async recordFailure(examId, userKey, failure) {
      const { b, t } = take(examId, userKey);
      b.failures += 1;
      b.backoffUntil = t + backoffMs(b.failures, settings);
      b.lastFailure = failure;
      return decide(b, t);
    },
  };
}
