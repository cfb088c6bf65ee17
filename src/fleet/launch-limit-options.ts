/**
 * The `launchLimit` option, read the same way on the router (in process) and on
 * `redisFleet` (fleet-wide): problems go to the caller's list, so each factory still
 * throws one ConfigurationError listing everything.
 */
import type { ProblemList } from "../core/configuration-error.js";
import { DEFAULT_LAUNCH_LIMIT, type LaunchLimitSettings } from "./launch-limiter.js";

/** What an integrator passes: every field optional. */
export type LaunchLimitOptions = Partial<LaunchLimitSettings>;

const whole = (v: unknown, min: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min;

export function readLaunchLimit(value: unknown, problems: ProblemList, option = "launchLimit"): LaunchLimitSettings {
  const d = DEFAULT_LAUNCH_LIMIT;
  if (value !== undefined && (typeof value !== "object" || value === null)) {
    problems.add(option, "must be an object { burst, refillMs, failureBackoffMs, maxFailureBackoffMs }.", `Leave it out for { burst: ${d.burst}, refillMs: ${d.refillMs}, failureBackoffMs: ${d.failureBackoffMs}, maxFailureBackoffMs: ${d.maxFailureBackoffMs} }.`);
    return { ...d };
  }
  const o = (value ?? {}) as LaunchLimitOptions;
  const fields: [keyof LaunchLimitSettings, number, string][] = [
    ["burst", 1, "a whole number of at least 1"],
    ["refillMs", 1, "a whole number of ms, at least 1"],
    ["failureBackoffMs", 0, "a whole number of ms, at least 0"],
    ["maxFailureBackoffMs", 0, "a whole number of ms, at least 0"],
  ];
  const settings = { ...d };
  for (const [name, min, what] of fields) {
    const v = o[name] ?? d[name];
    if (whole(v, min)) settings[name] = v;
    else problems.add(`${option}.${name}`, `must be ${what}.`, `Leave it out for ${d[name]}.`);
  }
  if (settings.maxFailureBackoffMs < settings.failureBackoffMs) {
    problems.add(`${option}.maxFailureBackoffMs`, "is shorter than failureBackoffMs.", "Make it at least failureBackoffMs, or leave both out (2000 and 60000).");
  }
  return settings;
}
