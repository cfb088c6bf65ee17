/**
 * `lti.dynamicRegistration` read into settings. Off unless given: the registration URL is
 * public, so turning it on is the integrator's decision, and what it stores waits for the
 * administrator (`autoActivate: false`) unless the LMS hosts are pinned (`allowedHosts`).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { isOrganizationId } from "../../store/types.js";
import { z } from "zod";
import { flag, optional, readObject, wholeNumber, withDefault, type OptionsOf } from "../../core/option-schema.js";
import { text } from "../shared/shared-options.js";

const HOST = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/;

export function hostAllowed(hostname: string, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  const host = hostname.toLowerCase();
  return allowed.some((a) => (a.startsWith("*.") ? host.endsWith(a.slice(1)) : host === a));
}

const ORGANIZATION = "must be an organization id (1-64 letters, digits, _ . or -).";

export const dynamicRegistrationSchema = {
  enabled: withDefault(flag(), true),
  autoActivate: withDefault(flag(), false),
  acceptNewDeployments: withDefault(flag(), true),
  allowLoopbackHttp: withDefault(flag(), false),
  organization: optional(z.string({ error: ORGANIZATION }).refine(isOrganizationId, { error: ORGANIZATION }),
    { fix: "Name the organization new deployments launch for, or leave it out." }),
  /** Lower-case host names (`*.example.edu` matches any subdomain); undefined: any host. */
  allowedHosts: optional(z.custom<string[]>((v) => Array.isArray(v) && v.length > 0 && v.every((h) => typeof h === "string" && HOST.test(h.toLowerCase())),
    { error: "must be a non-empty array of host names (a leading *. matches subdomains)." }).transform((hosts) => hosts.map((h) => h.toLowerCase())),
  { fix: 'Pass e.g. ["canvas.school.edu", "*.instructure.com"], or leave it out to allow any host.' }),
  timeoutMs: withDefault(wholeNumber(500, 30_000, "ms"), 5_000),
  maxPending: withDefault(wholeNumber(1, 1_000), 20),
  toolName: withDefault(text(100), "Oral assessments"),
};

export type DynamicRegistrationSettings = OptionsOf<typeof dynamicRegistrationSchema>;

/** `lti.dynamicRegistration`, off (`enabled: false`) when left out. */
export function readDynamicRegistration(value: unknown, problems: ProblemList): DynamicRegistrationSettings {
  const settings = readObject(dynamicRegistrationSchema, value, problems, "lti.dynamicRegistration",
    ["must be an object { enabled, organization, autoActivate, allowedHosts, … }.", "See docs/lti.md, or leave it out to keep Dynamic Registration off."]);
  if (settings.enabled && settings.autoActivate && (value as { allowedHosts?: unknown }).allowedHosts === undefined) {
    problems.add("lti.dynamicRegistration.autoActivate", "needs allowedHosts: the registration URL is public, and an active registration lets its LMS sign students in.",
      "List the LMS hosts allowed to register (allowedHosts), or leave autoActivate out and activate each registration (docs/lti.md).");
  }
  return value === undefined ? { ...settings, enabled: false } : settings;
}
