/**
 * The `metrics` option checked, and `prom-client` loaded (synchronously: see
 * core/optional-module.ts) only when it is given. Problems go to the router's one
 * ConfigurationError.
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { requireOptional } from "../../core/optional-module.js";
import { flag, optionMeta, readObject, withDefault, withMethods } from "../../core/option-schema.js";
import type { MetricsOptions, MetricsRegistry } from "../shared/metrics-options.js";
import { heldOrganizationLabel, instrumentsFor, type Instruments } from "./instruments.js";

/** The `metrics` option as a schema (a registry is required once `metrics` is given). */
export const metricsSchema = {
  registry: withMethods<MetricsRegistry>("prom-client's Registry", ["registerMetric", "getSingleMetric", "metrics"])
    .register(optionMeta, { fix: "Pass metrics: { registry } with `new Registry()` or `register` from prom-client, or leave metrics out." }),
  organizationLabel: withDefault(flag(), false, { fix: "Leave it out for false (no organization label)." }),
};

/**
 * Undefined: no `metrics` option, nothing registered and nothing counted. Otherwise what
 * registers the metrics (or finds them on the registry), called once every option is
 * known to be right, so a misconfigured router registers nothing.
 */
export function resolveMetricsSettings(value: MetricsOptions | undefined, problems: ProblemList): (() => Instruments) | undefined {
  if (value === undefined) return undefined;
  const before = problems.size;
  const { registry, organizationLabel } = readObject(metricsSchema, value, problems, "metrics", ["must be an object { registry, organizationLabel }.", "Pass metrics: { registry }, or leave metrics out."]);
  if (problems.size > before) return undefined;
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
