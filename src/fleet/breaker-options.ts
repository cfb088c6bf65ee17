/**
 * The `circuitBreaker` option, one schema read the same way on the router (in process)
 * and on `redisFleet` (fleet-wide): problems go to the caller's list, so each factory
 * still throws one ConfigurationError listing everything.
 */
import type { ProblemList } from "../core/configuration-error.js";
import { ratio, readObject, wholeNumber, withDefault } from "../core/option-schema.js";
import { DEFAULT_BREAKER_SETTINGS as D, type CircuitBreakerSettings } from "./circuit-breaker.js";

/** What an integrator passes: every field optional. */
export type CircuitBreakerOptions = Partial<CircuitBreakerSettings>;

export const circuitBreakerSchema = {
  minFailures: withDefault(wholeNumber(1), D.minFailures),
  windowMs: withDefault(wholeNumber(100, undefined, "ms"), D.windowMs),
  openMs: withDefault(wholeNumber(100, undefined, "ms"), D.openMs),
  probeLeaseMs: withDefault(wholeNumber(100, undefined, "ms"), D.probeLeaseMs),
  failureRatio: withDefault(ratio(0, 1, { minExclusive: true }), D.failureRatio),
};

export function readBreakerOptions(value: unknown, problems: ProblemList, option = "circuitBreaker"): CircuitBreakerSettings {
  return readObject(circuitBreakerSchema, value, problems, option, ["must be an object { minFailures, failureRatio, windowMs, openMs, probeLeaseMs }.",
    "Leave it out for the defaults (5 failures, half the calls, within 30 s; open 15 s)."]);
}
