/**
 * The `launchLimit` option, one schema read the same way on the router (in process) and
 * on `redisFleet` (fleet-wide): a field of each factory's schema, so each still throws one
 * ConfigurationError listing everything.
 */
import { nested, wholeNumber, withDefault } from "../core/option-schema.js";
import { DEFAULT_LAUNCH_LIMIT as D, type LaunchLimitSettings } from "./launch-limiter.js";

/** What an integrator passes: every field optional. */
export type LaunchLimitOptions = Partial<LaunchLimitSettings>;

export const launchLimitSchema = {
  burst: withDefault(wholeNumber(1), D.burst),
  refillMs: withDefault(wholeNumber(1, undefined, "ms"), D.refillMs),
  failureBackoffMs: withDefault(wholeNumber(0, undefined, "ms"), D.failureBackoffMs),
  maxFailureBackoffMs: withDefault(wholeNumber(0, undefined, "ms"), D.maxFailureBackoffMs),
};

/** The whole option: not an object is one problem, each wrong field another (`launchLimit.burst`), then the backoffs' order. */
export const launchLimitOption = nested(launchLimitSchema)
  .refine((s) => s.maxFailureBackoffMs >= s.failureBackoffMs, { path: ["maxFailureBackoffMs"], error: "is shorter than failureBackoffMs.",
    params: { fix: `Make it at least failureBackoffMs, or leave both out (${D.failureBackoffMs} and ${D.maxFailureBackoffMs}).` } });
