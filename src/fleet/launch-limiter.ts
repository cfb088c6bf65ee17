/**
 * A fair share per student (issue part 2): how many sign-in calls one student may cause
 * per exam. A token bucket per (exam, student): a burst of `burst`, then one more every
 * `refillMs` (defaults: 3, then 1 per minute). The router asks `check` before it makes a
 * call and `record`s only tokens actually issued to the student: prepared tokens,
 * coalesced double clicks and failed calls do not count, so a platform outage never
 * locks students out.
 *
 * `inProcessLaunchLimiter()` is the zero-configuration default; redis-launch-limiter.ts
 * enforces it fleet-wide.
 */

export interface LaunchLimitDecision {
  allowed: boolean;
  /** When not allowed: ms until the next call is allowed (for `Retry-After`). 0 when allowed. */
  retryAfterMs: number;
  /** Calls the student may still cause right now. */
  remaining: number;
}

export interface LaunchLimiter {
  /** Whether the student may cause one more sign-in call now; counts nothing. */
  check(examId: string, userKey: string): Promise<LaunchLimitDecision>;
  /** Counts one token issued to the student (even past the limit: concurrent calls that all passed `check`). */
  record(examId: string, userKey: string): Promise<LaunchLimitDecision>;
}

export interface LaunchLimitSettings {
  /** Calls allowed at once. Default 3. */
  burst: number;
  /** One more call allowed every `refillMs`. Default 60 000. */
  refillMs: number;
}

/** The bucket's arithmetic, shared in spirit with the Lua version (same formulas). */
export function refill(tokens: number, lastMs: number, now: number, s: LaunchLimitSettings): number {
  return Math.min(s.burst, tokens + Math.max(0, now - lastMs) / s.refillMs);
}

export function decision(tokens: number, s: LaunchLimitSettings): LaunchLimitDecision {
  if (tokens >= 1) return { allowed: true, retryAfterMs: 0, remaining: Math.floor(tokens) };
  return { allowed: false, retryAfterMs: Math.ceil((1 - tokens) * s.refillMs), remaining: 0 };
}

export function inProcessLaunchLimiter(settings: LaunchLimitSettings, now: () => number = Date.now): LaunchLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const bucket = (examId: string, userKey: string) => {
    const key = `${examId}\u0000${userKey}`;
    const t = now();
    const b = buckets.get(key) ?? { tokens: settings.burst, at: t };
    b.tokens = refill(b.tokens, b.at, t, settings);
    b.at = t;
    if (b.tokens >= settings.burst) buckets.delete(key); // a full bucket needs no memory
    else buckets.set(key, b);
    return { b, key };
  };
  return {
    async check(examId, userKey) {
      return decision(bucket(examId, userKey).b.tokens, settings);
    },
    async record(examId, userKey) {
      const { b, key } = bucket(examId, userKey);
      b.tokens = Math.max(-settings.burst, b.tokens - 1);
      buckets.set(key, b);
      return decision(b.tokens, settings);
    },
  };
}
