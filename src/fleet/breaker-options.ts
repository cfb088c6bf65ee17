/**
 * The `circuitBreaker` option, read the same way on the router (in process) and on
 * `redisFleet` (fleet-wide): problems go to the caller's list, so each factory still
 * throws one ConfigurationError listing everything.
 */
import type { ProblemList } from "../core/configuration-error.js";
import { DEFAULT_BREAKER_SETTINGS, type CircuitBreakerSettings } from "./circuit-breaker.js";

/** What an integrator passes: every field optional. */
export type CircuitBreakerOptions = Partial<CircuitBreakerSettings>;

const whole = (v: unknown, min: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min;

export function readBreakerOptions(value: unknown, problems: ProblemList, option = "circuitBreaker"): CircuitBreakerSettings {
  const d = DEFAULT_BREAKER_SETTINGS;
  if (value !== undefined && (typeof value !== "object" || value === null)) {
    problems.add(option, "must be an object { minFailures, failureRatio, windowMs, openMs, probeLeaseMs }.", "Leave it out for the defaults (5 failures, half the calls, within 30 s; open 15 s).");
    return { ...d };
  }
  const o = (value ?? {}) as CircuitBreakerOptions;
  const settings = { ...d };
  const wholeFields: [Exclude<keyof CircuitBreakerSettings, "failureRatio">, number][] = [
    ["minFailures", 1], ["windowMs", 100], ["openMs", 100], ["probeLeaseMs", 100],
  ];
  for (const [name, min] of wholeFields) {
    const v = o[name] ?? d[name];
    if (whole(v, min)) settings[name] = v;
    else problems.add(`${option}.${name}`, `must be a whole number${name === "minFailures" ? "" : " of ms"}, at least ${min}.`, `Leave it out for ${d[name]}.`);
  }
  const ratio = o.failureRatio ?? d.failureRatio;
  if (typeof ratio === "number" && ratio > 0 && ratio <= 1) settings.failureRatio = ratio;
  else problems.add(`${option}.failureRatio`, "must be a number above 0 and at most 1.", `Leave it out for ${d.failureRatio}.`);
  return settings;
}
