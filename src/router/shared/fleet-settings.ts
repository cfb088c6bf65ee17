/**
 * The `fleet`, `launchLimit` and `circuitBreaker` options, checked into the router's one
 * ConfigurationError. The last two configure the default in-process fleet; beside a
 * fleet they belong on `redisFleet`, so every instance enforces the same values.
 */
import { z } from "zod";
import type { ProblemList } from "../../core/configuration-error.js";
import { optional, readOptions } from "../../core/option-schema.js";
import { circuitBreakerOption } from "../../fleet/breaker-options.js";
import type { Fleet } from "../../fleet/fleet.js";
import { launchLimitOption } from "../../fleet/launch-limit-options.js";
import type { OralAssessmentsOptions } from "./options.js";
import { onFleetBudget } from "../../platform/budget-binding.js";
import type { RateBudget } from "../../platform/rate-budget-interface.js";
import type { PlatformClient } from "../../platform/types.js";

const FLEET_PARTS = ["attempts", "preparedTokens", "planLeases", "launchLimiter", "breaker"] as const;

/** A fleet as `redisFleet` and `inProcessFleet` make one: its parts, its instance id and `close()`. */
const fleetSchema = optional(z.custom<Fleet>((value) => {
  const f = value as Record<string, unknown> | null;
  return FLEET_PARTS.every((part) => typeof f?.[part] === "object" && f[part] !== null) && typeof f?.instanceId === "string" && typeof f?.close === "function";
}, { error: "is not a fleet." }), { fix: "Pass redisFleet({ url, secret }), or leave fleet out for one instance (an in-process fleet)." });

/** `platform`: the platform client on the fleet's budget (the app's own, or its twin the router built), when a fleet shares one. */
export function resolveFleetSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList) {
  const fleetOptions = { fleet: fleetSchema, launchLimit: launchLimitOption, circuitBreaker: circuitBreakerOption };
  const { fleet, launchLimit, circuitBreaker } = readOptions(fleetOptions, o, problems);
  for (const option of o.fleet === undefined ? [] : (["launchLimit", "circuitBreaker"] as const).filter((name) => o[name] !== undefined)) {
    problems.add(option, "is set on the router when a fleet is passed.", `Move it to redisFleet({ ${option} }) so every instance enforces the same one.`);
  }
  const platform = fleet?.rateBudget && o.platform ? onFleetBudgetOf(o.platform, fleet.rateBudget, problems) : undefined;
  return { fleet, launchLimit, circuitBreaker, platform };
}

/**
 * One wiring point: the router gives the fleet's shared budget to the platform client, so
 * an instance cannot keep a window of its own beside the fleet's. A client given another
 * budget on purpose is a contradiction the router refuses rather than guesses about.
 */
function onFleetBudgetOf(platform: PlatformClient, budget: RateBudget, problems: ProblemList): PlatformClient | undefined {
  const answer = onFleetBudget(platform, budget);
  if (answer.kind === "same" || answer.kind === "rebuilt") return answer.client;
  if (answer.kind === "other-budget") {
    problems.add("platform", "has a rateBudget that is not the fleet's: its calls would not count in the fleet's shared window.",
      "Leave rateBudget out of createPlatformClient: the router gives the client the fleet's budget.");
  } else {
    problems.add("platform", "was not built by createPlatformClient, so the router cannot give it the fleet's shared budget.",
      "Pass platform: createPlatformClient({ apiKey, baseUrl }).");
  }
  return undefined;
}
