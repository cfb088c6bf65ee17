/**
 * When to try a failed call again, and how long to wait first. Pure functions: the client
 * feeds them what happened and sleeps for what they answer, so the policy is testable
 * without a network.
 *
 * - 429 is retried for every method: the platform refused the request without acting on
 *   it. We wait the `Retry-After` it asked for; if that is longer than `maxRetryAfterMs`,
 *   or than the time left before the call's deadline, we give up at once (the caller gets
 *   a `PlatformRateLimitError` carrying `retryAfter`) rather than sit on a doomed call.
 * - A launch-priority call waits out every 429 its deadline allows (`waitOut429`): the
 *   platform refused it for the key's rate, not for anything about the student, and the
 *   student is on a waiting page meanwhile. Neither `maxRetries` nor `maxRetryAfterMs`
 *   turns such a 429 into a failed launch; the deadline (`launchWaitMs`) still does.
 * - 5xx, timeouts, resets and network failures are retried only for GET, PUT and DELETE.
 *   A POST (or PATCH) that timed out may have created the record; sending it again could
 *   create a second course or issue a second sign-in token.
 * - Backoff is exponential with full jitter (a uniform delay in [0, min(cap, base·2^n)]),
 *   so clients that failed together do not retry together.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /** Longest Retry-After honoured. */
  maxRetryAfterMs: number;
}

/** What went wrong with one attempt, reduced to what the policy needs. */
export type AttemptFailure =
  | { type: "status"; status: number; retryAfterMs?: number }
  | { type: "timeout" | "reset" | "network" | "bad_response" };

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: "not_retryable" | "exhausted" | "retry_after_too_long" | "deadline" };

/** Methods whose repetition cannot create a second record. */
const IDEMPOTENT = new Set<string>(["GET", "PUT", "DELETE"]);
/** Statuses that say "not now" rather than "no". 501 and other 5xx are permanent. */
const TRANSIENT_STATUSES = new Set([408, 500, 502, 503, 504]);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/** Full jitter: uniform in [0, min(max, base·2^retryIndex)]. `retryIndex` starts at 0. */
export function backoffDelay(retryIndex: number, policy: Pick<RetryPolicy, "retryBaseDelayMs" | "retryMaxDelayMs">, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.retryMaxDelayMs, policy.retryBaseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * Decides whether attempt number `attempt` (1-based, the one that just failed) is
 * followed by another, and after how long. `msLeft` is the time left before the call's
 * deadline; a wait that would outlast it is not started.
 */
export function decideRetry(args: {
  policy: RetryPolicy;
  method: string;
  attempt: number;
  failure: AttemptFailure;
  msLeft: number;
  /** A 429 is retried whenever the deadline allows, whatever `maxRetries` and `maxRetryAfterMs` say (launch priority). */
  waitOut429?: boolean;
  random?: () => number;
}): RetryDecision {
  const { policy, method, attempt, failure, msLeft } = args;
  const rateLimited = failure.type === "status" && failure.status === 429;
  if (!rateLimited && !(isIdempotent(method) && isTransient(failure))) return { retry: false, reason: "not_retryable" };

  const retryAfterMs = failure.type === "status" ? failure.retryAfterMs : undefined;
  const waitOut = rateLimited && args.waitOut429 === true;
  if (!waitOut && retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return { retry: false, reason: "retry_after_too_long" };
  if (!waitOut && attempt > policy.maxRetries) return { retry: false, reason: "exhausted" };

  const backoff = backoffDelay(attempt - 1, policy, args.random);
  // Retry-After is a floor set by the platform; jittered backoff applies when it is absent.
  const delayMs = retryAfterMs ?? backoff;
  if (delayMs >= msLeft) return { retry: false, reason: "deadline" };
  return { retry: true, delayMs };
}

function isTransient(failure: AttemptFailure): boolean {
  if (failure.type === "status") return TRANSIENT_STATUSES.has(failure.status);
  // A body we cannot parse will not parse better the second time.
  return failure.type !== "bad_response";
}

/**
 * Reads `Retry-After`: delta-seconds or an HTTP date. Returns ms, or undefined when the
 * header is absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
