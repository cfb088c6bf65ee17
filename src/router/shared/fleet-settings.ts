/**
 * The `fleet`, `launchLimit` and `circuitBreaker` options, checked into the router's one
 * ConfigurationError. The last two configure the default in-process fleet; beside a
 * fleet they belong on `redisFleet`, so every instance enforces the same values.
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { readBreakerOptions } from "../../fleet/breaker-options.js";
import type { CircuitBreakerSettings } from "../../fleet/circuit-breaker.js";
import type { Fleet } from "../../fleet/fleet.js";
import { readLaunchLimit } from "../../fleet/launch-limit-options.js";
import type { LaunchLimitSettings } from "../../fleet/launch-limiter.js";
import type { OralAssessmentsOptions } from "./options.js";

const FLEET_PARTS = ["attempts", "preparedTokens", "planLeases", "launchLimiter", "breaker"] as const;

export interface FleetSettings {
  fleet: Fleet | undefined;
  launchLimit: LaunchLimitSettings;
  circuitBreaker: CircuitBreakerSettings;
}

export function resolveFleetSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList): FleetSettings {
  let fleet: Fleet | undefined;
  if (o.fleet !== undefined) {
    const f = o.fleet as unknown as Record<string, unknown> | null;
    const missing = FLEET_PARTS.filter((part) => typeof f?.[part] !== "object" || f?.[part] === null);
    if (missing.length > 0 || typeof f?.instanceId !== "string" || typeof f?.close !== "function") {
      problems.add("fleet", "is not a fleet.", "Pass redisFleet({ url, secret }) (or inProcessFleet()), or leave fleet out for one instance.");
    } else fleet = o.fleet;
  }
  const launchLimit = readLaunchLimit(o.launchLimit, problems);
  const circuitBreaker = readBreakerOptions(o.circuitBreaker, problems);
  if (o.fleet !== undefined) {
    for (const option of ["launchLimit", "circuitBreaker"] as const) {
      if (o[option] !== undefined) {
        problems.add(option, "is set on the router when a fleet is passed.", `Move it to redisFleet({ ${option} }) so every instance enforces the same one.`);
      }
    }
  }
  return { fleet, launchLimit, circuitBreaker };
}
