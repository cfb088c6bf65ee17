/**
 * The in-process rate budget's options (rate-budget.ts), with their defaults.
 */

export interface RateBudgetOptions {
  /** Requests per window. */
  limit: number;
  /** Window length, ms. Default 60 000. */
  windowMs?: number;
  /** Requests in flight at once. Default 16. */
  maxConcurrency?: number;
  /**
   * Share of the window kept for normal-priority (instructor) calls while launches wait:
   * a waiting normal call goes before waiting launches as long as fewer than
   * ⌈normalShare × limit⌉ normal calls were sent in the last window. From 0 (launches
   * always first) up to 1. Default 0.1.
   */
  normalShare?: number;
  /**
   * Whether `limit` is a default the platform's stated `X-RateLimit-Limit` replaces, higher
   * or lower (true), or a limit the integrator chose, which a lower stated limit only
   * narrows (false: it may have been lowered on purpose to share the key). Default false.
   */
  learnLimit?: boolean;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

export interface FallbackBudgetOptions extends RateBudgetOptions {
  /**
   * The part of what the platform reports of the key, its stated limit (`X-RateLimit-Limit`)
   * and its Remaining, that this budget may use: a shared budget's fallback takes
   * 1 ÷ expected instances, as of its configured limit. Default 1 (all).
   */
  platformShare?: number;
}

/** The default share of the window kept for normal calls during a launch storm. */
export const DEFAULT_NORMAL_SHARE = 0.1;
