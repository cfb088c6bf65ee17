/**
 * The `fleet` and `launchLimit` options, checked into the router's one ConfigurationError.
 */
import type { ProblemList } from "../../core/configuration-error.js";
import type { Fleet } from "../../fleet/fleet.js";
import type { OralAssessmentsOptions } from "./options.js";

const FLEET_PARTS = ["attempts", "preparedTokens", "planLeases", "launchLimiter"] as const;

const whole = (v: unknown, min: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min;

export function resolveFleetSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList): { fleet: Fleet | undefined; launchLimit: { burst: number; refillMs: number } } {
  let fleet: Fleet | undefined;
  if (o.fleet !== undefined) {
    const f = o.fleet as unknown as Record<string, unknown> | null;
    const missing = FLEET_PARTS.filter((part) => typeof f?.[part] !== "object" || f?.[part] === null);
    if (missing.length > 0 || typeof f?.instanceId !== "string" || typeof f?.close !== "function") {
      problems.add("fleet", "is not a fleet.", "Pass redisFleet({ url, secret }) (or inProcessFleet()), or leave fleet out for one instance.");
    } else fleet = o.fleet;
  }
  const limit = o.launchLimit;
  const burst = limit?.burst ?? 3;
  const refillMs = limit?.refillMs ?? 60_000;
  if (limit !== undefined && (typeof limit !== "object" || limit === null)) {
    problems.add("launchLimit", "must be an object { burst, refillMs }.", "Leave it out for { burst: 3, refillMs: 60000 }.");
  } else {
    if (!whole(burst, 1)) problems.add("launchLimit.burst", "must be a whole number of at least 1.", "Leave it out for 3.");
    if (!whole(refillMs, 1)) problems.add("launchLimit.refillMs", "must be a whole number of ms, at least 1.", "Leave it out for 60000.");
    if (limit !== undefined && o.fleet !== undefined) {
      problems.add("launchLimit", "is set on the fleet when a fleet is passed.", "Move it to redisFleet({ launchLimit }) so every instance enforces the same limit.");
    }
  }
  return { fleet, launchLimit: { burst, refillMs } };
}
