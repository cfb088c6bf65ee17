/**
 * The `metrics` option checked, and `prom-client` loaded (synchronously: see
 * core/optional-module.ts) only when it is given. Problems go to the router's one
 * ConfigurationError.
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { requireOptional } from "../../core/optional-module.js";
import type { MetricsOptions, MetricsRegistry } from "./options.js";
import { heldOrganizationLabel, instrumentsFor, type Instruments } from "./instruments.js";

/**
 * Undefined: no `metrics` option, nothing registered and nothing counted. Otherwise what
 * registers the metrics (or finds them on the registry), called once every option is
 * known to be right, so a misconfigured router registers nothing.
 */
export function resolveMetricsSettings(value: MetricsOptions | undefined, problems: ProblemList): (() => Instruments) | undefined {
  if (value === undefined) return undefined;
  const registry = (value as Partial<MetricsOptions> | null)?.registry as Partial<MetricsRegistry> | undefined;
  if (typeof registry?.registerMetric !== "function" || typeof registry.getSingleMetric !== "function" || typeof registry.metrics !== "function") {
    problems.add("metrics.registry", "must be a prom-client Registry.", "Pass metrics: { registry } with `new Registry()` or `register` from prom-client, or leave metrics out.");
    return undefined;
  }
  const organizationLabel = value.organizationLabel ?? false;
  if (typeof organizationLabel !== "boolean") {
    problems.add("metrics.organizationLabel", "must be true or false.", "Leave it out for false (no organization label).");
    return undefined;
  }
  const held = heldOrganizationLabel(registry);
  if (held !== undefined && held !== organizationLabel) {
    problems.add("metrics.organizationLabel", `is ${organizationLabel}, but another router registered its oral_assessments_ metrics on this registry with ${held}.`,
      "Give every router on one registry the same organizationLabel.");
    return undefined;
  }
  const prom = requireOptional<unknown>("prom-client");
  if (prom === undefined) {
    problems.add("metrics", "needs the `prom-client` package, which is not installed.", "Run `npm i prom-client` (an optional peer dependency of express-oral-assessments), or leave metrics out.");
    return undefined;
  }
  return () => instrumentsFor(prom, registry, organizationLabel);
}
