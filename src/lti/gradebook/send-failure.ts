/**
 * Why a score was not posted: `retry` for what time may cure (the LMS down, 429, 5xx, a
 * token endpoint unreachable), not for what it will not (no line item to use, a refusal, a
 * registration gone, a line item that keeps no grade), which the launch record then shows.
 */
export class SendFailure extends Error {
  constructor(message: string, readonly retry: boolean,
    /** What the LMS answered (undefined: no answer: unreachable, timed out), and its `Retry-After` (ms) on a 429 or 503. */
    readonly answer?: { status?: number; retryAfterMs?: number }) {
    super(message);
  }
}
