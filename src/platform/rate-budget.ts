/**
 * The rate budget: one scheduler every platform call passes through before it is sent.
 *
 * The platform limits each key over a sliding window (dev 60, prod 600 requests per
 * minute) and answers 429 beyond it. A 429 costs a student at the launch page a
 * `Retry-After` wait, so the budget keeps calls *out* of that state instead of recovering
 * from it:
 *
 * - it counts the requests it let through in the last window and holds the next one
 *   until an old one leaves the window;
 * - it follows `X-RateLimit-Remaining`/`-Reset` from responses, which also reflect other
 *   processes using the same key: at 0 it waits for the reset instead of sending;
 * - after a 429 it holds everything until `Retry-After` has passed (`pause`);
 * - it caps requests in flight (`maxConcurrency`);
 * - waiting calls leave in priority order (`launch` before `normal`), first come first
 *   served within a priority, and leave the queue when their signal aborts (deadline or
 *   caller), rejecting with the signal's reason;
 * - except that a launch storm never shuts normal (instructor) calls out: while fewer than
 *   ⌈normalShare × limit⌉ normal calls were sent in the last window, a waiting normal call
 *   goes before waiting launches, so it waits at most until the next slot frees.
 *
 * `RateBudget` is an interface so that several app instances sharing one key can plug in
 * a shared implementation (e.g. on Redis); `createRateBudget` is the in-process one.
 */
import type { RateBudget } from "./rate-budget-interface.js";
import { InProcessRateBudget } from "./rate-budget-in-process.js";
import type { FallbackBudgetOptions, RateBudgetOptions } from "./rate-budget-options.js";

export type { KeyLimit, RateBudget, RateBudgetStats, RateLimitObservation, ReleaseFn } from "./rate-budget-interface.js";
export { DEFAULT_NORMAL_SHARE, type RateBudgetOptions } from "./rate-budget-options.js";
export { InProcessRateBudget } from "./rate-budget-in-process.js";

export function createRateBudget(options: RateBudgetOptions): RateBudget {
  return new InProcessRateBudget(options);
}

/**
 * The in-process budget with what a shared budget's fallback needs beyond the interface:
 * `assumeFull` (Redis went away: the window it kept is out of reach, see fallback use in
 * src/fleet/budget-fallback.ts).
 */
export function createFallbackRateBudget(options: FallbackBudgetOptions): InProcessRateBudget {
  return new InProcessRateBudget(options);
}
