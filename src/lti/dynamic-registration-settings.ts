/**
 * `lti.dynamicRegistration` read into settings. Off unless given: the registration URL is
 * public, so turning it on is the integrator's decision, and what it stores waits for the
 * administrator (`autoActivate: false`) unless the LMS hosts are pinned (`allowedHosts`).
 */
import type { ProblemList } from "../core/configuration-error.js";
import { isOrganizationId } from "../store/types.js";
import type { LtiDynamicRegistrationOptions } from "./options.js";

export interface DynamicRegistrationSettings {
  enabled: boolean;
  autoActivate: boolean;
  organization: string | undefined;
  acceptNewDeployments: boolean;
  /** Lower-case host names (`*.example.edu` matches any subdomain); undefined: any host. */
  allowedHosts: string[] | undefined;
  /** Plain http on loopback accepted (development). */
  allowLoopbackHttp: boolean;
  timeoutMs: number;
  maxPending: number;
  toolName: string;
}

const HOST = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/;

export function hostAllowed(hostname: string, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  const host = hostname.toLowerCase();
  return allowed.some((a) => (a.startsWith("*.") ? host.endsWith(a.slice(1)) : host === a));
}

export function readDynamicRegistration(value: unknown, problems: ProblemList): DynamicRegistrationSettings {
  const off: DynamicRegistrationSettings = {
    enabled: false, autoActivate: false, organization: undefined, acceptNewDeployments: true, allowedHosts: undefined, allowLoopbackHttp: false,
    timeoutMs: 5_000, maxPending: 20, toolName: "Oral assessments",
  };
  if (value === undefined) return off;
  const at = (name: string) => `lti.dynamicRegistration${name ? `.${name}` : ""}`;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problems.add(at(""), "must be an object { enabled, organization, autoActivate, allowedHosts, … }.", "See docs/lti.md, or leave it out to keep Dynamic Registration off.");
    return off;
  }
  const o = value as LtiDynamicRegistrationOptions;
  const flag = (name: "enabled" | "autoActivate" | "acceptNewDeployments" | "allowLoopbackHttp", fallback: boolean): boolean => {
    const v = o[name];
    if (v === undefined) return fallback;
    if (typeof v === "boolean") return v;
    problems.add(at(name), "must be true or false.", `Leave it out for ${fallback}.`);
    return fallback;
  };
  const whole = (name: "timeoutMs" | "maxPending", fallback: number, min: number, max: number): number => {
    const v = o[name];
    if (v === undefined) return fallback;
    if (typeof v === "number" && Number.isInteger(v) && v >= min && v <= max) return v;
    problems.add(at(name), `must be a whole number from ${min} to ${max}.`, `Leave it out for ${fallback}.`);
    return fallback;
  };
  const enabled = flag("enabled", true);
  const autoActivate = flag("autoActivate", false);
  const acceptNewDeployments = flag("acceptNewDeployments", true);
  const allowLoopbackHttp = flag("allowLoopbackHttp", false);
  if (o.organization !== undefined && !isOrganizationId(o.organization)) {
    problems.add(at("organization"), "must be an organization id (1-64 letters, digits, _ . or -).", "Name the organization new deployments launch for, or leave it out.");
  }
  let allowedHosts: string[] | undefined;
  if (o.allowedHosts !== undefined) {
    if (!Array.isArray(o.allowedHosts) || o.allowedHosts.length === 0 || !o.allowedHosts.every((h) => typeof h === "string" && HOST.test(h.toLowerCase()))) {
      problems.add(at("allowedHosts"), "must be a non-empty array of host names (a leading *. matches subdomains).", 'Pass e.g. ["canvas.school.edu", "*.instructure.com"], or leave it out to allow any host.');
    } else allowedHosts = o.allowedHosts.map((h) => h.toLowerCase());
  }
  if (enabled && autoActivate && o.allowedHosts === undefined) {
    problems.add(at("autoActivate"), "needs allowedHosts: the registration URL is public, and an active registration lets its LMS sign students in.",
      "List the LMS hosts allowed to register (allowedHosts), or leave autoActivate out and activate each registration (docs/lti.md).");
  }
  const toolName = o.toolName ?? off.toolName;
  if (typeof toolName !== "string" || toolName.length === 0 || toolName.length > 100) problems.add(at("toolName"), "must be a string of 1-100 characters.", `Leave it out for "${off.toolName}".`);
  return {
    enabled, autoActivate, acceptNewDeployments, allowedHosts, allowLoopbackHttp,
    organization: isOrganizationId(o.organization) ? o.organization : undefined,
    timeoutMs: whole("timeoutMs", off.timeoutMs, 500, 30_000),
    maxPending: whole("maxPending", off.maxPending, 1, 1_000),
    toolName: typeof toolName === "string" ? toolName : off.toolName,
  };
}
