/**
 * The `circuitBreaker` option, one schema read the same way on the router (in process)
 * and on `redisFleet` (fleet-wide): a field of each factory's schema, so each still
 * throws one ConfigurationError listing everything.
 */
import { nested, ratio, wholeNumber, withDefault } from "../core/option-schema.js";
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

/** The whole option: not an object is one problem, each wrong field another (`circuitBreaker.windowMs`). */
export const circuitBreakerOption = nested(circuitBreakerSchema, { fix: "Leave it out for the defaults (5 failures, half the calls, within 30 s; open 15 s)." });
