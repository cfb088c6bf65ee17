/**
 * The `launchLimit` option, one schema read the same way on the router (in process) and
 * on `redisFleet` (fleet-wide): problems go to the caller's list, so each factory still
 * throws one ConfigurationError listing everything.
 */
import type { ProblemList } from "../core/configuration-error.js";
import { readObject, wholeNumber, withDefault } from "../core/option-schema.js";
import { DEFAULT_LAUNCH_LIMIT as D, type LaunchLimitSettings } from "./launch-limiter.js";

/** What an integrator passes: every field optional. */
export type LaunchLimitOptions = Partial<LaunchLimitSettings>;

export const launchLimitSchema = {
  burst: withDefault(wholeNumber(1), D.burst),
  refillMs: withDefault(wholeNumber(1, undefined, "ms"), D.refillMs),
  failureBackoffMs: withDefault(wholeNumber(0, undefined, "ms"), D.failureBackoffMs),
  maxFailureBackoffMs: withDefault(wholeNumber(0, undefined, "ms"), D.maxFailureBackoffMs),
};

export function readLaunchLimit(value: unknown, problems: ProblemList, option = "launchLimit"): LaunchLimitSettings {
  const settings = readObject(launchLimitSchema, value, problems, option, ["must be an object { burst, refillMs, failureBackoffMs, maxFailureBackoffMs }.",
    `Leave it out for { burst: ${D.burst}, refillMs: ${D.refillMs}, failureBackoffMs: ${D.failureBackoffMs}, maxFailureBackoffMs: ${D.maxFailureBackoffMs} }.`]);
  if (settings.maxFailureBackoffMs < settings.failureBackoffMs) {
    problems.add(`${option}.maxFailureBackoffMs`, "is shorter than failureBackoffMs.", `Make it at least failureBackoffMs, or leave both out (${D.failureBackoffMs} and ${D.maxFailureBackoffMs}).`);
  }
  return settings;
}
