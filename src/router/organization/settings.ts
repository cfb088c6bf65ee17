/**
 * The `platform` / `examHost` or `organization` options, checked into the router's one
 * ConfigurationError: one organization (a constant answer) or a resolver, never both.
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { readObject, wholeNumber, withDefault } from "../../core/option-schema.js";
import type { PlatformClient } from "../../platform/types.js";
import type { OralAssessmentsOptions } from "../shared/options.js";
import type { OrganizationSource } from "./organizations.js";

/** `organizationCache`: by default a district's dozen schools and a product's thousand customers both fit. */
export const organizationCacheSchema = {
  max: withDefault(wholeNumber(1), 1_000),
  idleMs: withDefault(wholeNumber(1, undefined, "ms"), 15 * 60_000),
};

const isClient = (p: unknown): p is PlatformClient => {
  const c = p as Partial<PlatformClient> | null | undefined;
  return typeof c?.students?.issueSignInToken === "function" && typeof c?.courses?.create === "function" && typeof c?.estimateWaitMs === "function";
};

/** `platform`: the client to use for the single organization (the fleet's twin, when it has one). */
export function resolveOrganizationSource(
  o: Partial<OralAssessmentsOptions>, platform: PlatformClient | undefined, examHost: string | undefined, problems: ProblemList,
): OrganizationSource | undefined {
  if (o.organization !== undefined) {
    if (typeof o.organization !== "function") {
      problems.add("organization", "must be a function (req) => ({ id, apiKey, baseUrl, examHost? }) or undefined.", "Pass an async function, or use platform for one organization.");
    }
    if (o.platform !== undefined) {
      problems.add("platform", "and organization are both set: they are exclusive.", "Use platform (and examHost) for one organization, or organization for many; not both.");
    }
    if (o.examHost !== undefined) {
      problems.add("examHost", "is set beside organization: each organization's examHost comes from the resolver.", "Move it into what organization(req) answers.");
    }
    const cache = readObject(organizationCacheSchema, o.organizationCache, problems, "organizationCache", ["must be an object { max, idleMs }.", "Leave it out for the defaults (1000 organizations, 15 minutes idle)."], true);
    if (typeof o.organization !== "function") return undefined;
    return { kind: "resolver", resolve: o.organization, client: o.organizationClient ?? {}, cache };
  }
  for (const option of (["organizationCache", "organizationClient"] as const).filter((name) => o[name] !== undefined)) {
    problems.add(option, "is set without organization.", "Leave it out, or pass organization for many organizations.");
  }
  if (!isClient(o.platform)) {
    problems.add("platform", "is missing or is not a platform client.", "Pass `platform: createPlatformClient({ apiKey, baseUrl })`, or `organization: (req) => ({ id, apiKey, baseUrl })` for many organizations.");
    return undefined;
  }
  return { kind: "single", platform: platform ?? o.platform, examHost };
}
