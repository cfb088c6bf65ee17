/**
 * Finds the platform's real rate window from its `X-RateLimit-*` headers, for a budget
 * configured with a longer one, so that it paces at the platform's real window.
 *
 * The signal: a response whose `Remaining` is back at the limit (`limit − 1`: only this
 * request counts) shows a window that had emptied, so its `Reset` is one whole window
 * away (rounded up to the next whole second by the platform). Whether the platform keeps
 * a sliding or a fixed window, `Reset − now` on such a "fresh" response is the window
 * length give or take that second. We keep the smallest of the last few fresh readings
 * (the rounding only ever adds) and adopt it when it is clearly shorter than the
 * configured window. A busy platform with a long window never shows a fresh response
 * with a near reset, so it is never mistaken for a short one; if the platform's window
 * later grows again, the new fresh readings replace the old ones.
 *
 * Pure and clock-free (the caller passes `now`): the in-process and the shared (Redis)
 * budgets both use it.
 */
import type { RateLimitObservation } from "./rate-budget-interface.js";

/** Fresh readings kept; the smallest wins. */
const READINGS = 5;
/** Never pace faster than one window per second: the platform's Reset has 1 s resolution. */
const MIN_WINDOW_MS = 1000;

export class WindowDetector {
  private readings: number[] = [];

  constructor(private readonly configuredMs: number) {}

  /** Feeds one response's headers; `now` is when it arrived (ms since epoch). */
  observe(observation: RateLimitObservation, now: number): void {
    const { limit, remaining, resetAt } = observation;
    if (limit === undefined || remaining === undefined || resetAt === undefined) return;
    if (!(limit > 0) || remaining < limit - 1 || resetAt <= now) return;
    this.readings.push(resetAt - now);
    if (this.readings.length > READINGS) this.readings.shift();
  }

  /** The window to pace at: the detected one when clearly shorter, else the configured one. */
  get windowMs(): number {
    if (this.readings.length === 0) return this.configuredMs;
    const detected = Math.max(MIN_WINDOW_MS, Math.min(...this.readings));
    // "Clearly shorter": a reading near the configured window is that window, rounded up.
    return detected < this.configuredMs * 0.9 ? Math.ceil(detected) : this.configuredMs;
  }
}
