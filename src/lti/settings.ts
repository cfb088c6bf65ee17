/**
 * The `lti` option read into settings, every mistake added to the router's problem list
 * (one ConfigurationError for the whole router).
 */
import type { ProblemList } from "../core/configuration-error.js";
import type { CanLink, LtiOptions, LtiStudentFields, OrganizationFor } from "./options.js";
import type { RolesWithoutContext } from "./claims.js";
import { readDynamicRegistration, type DynamicRegistrationSettings } from "./dynamic-registration-settings.js";
import { readLoginLimit, type LoginLimitSettings } from "./login-limit.js";
import { readRegistrations, type Registrations } from "./registrations.js";
import { readEmailSettings, type EmailSettings } from "./student-email.js";
import { readToolKeys, type ToolKeys } from "./tool-keys.js";
import { readGradebookOptions, type GradebookSettings } from "./gradebook/options.js";

export interface LtiSettings {
  keys: ToolKeys;
  /** `lti.registrations` only; the routes look the store up too (registration-source.ts). */
  registrations: Registrations;
  dynamicRegistration: DynamicRegistrationSettings;
  /** The mount's public URL without a trailing slash; undefined → derived per request. */
  toolUrl: string | undefined;
  clockToleranceSec: number;
  stateTtlSec: number;
  loginLimit: LoginLimitSettings;
  keySetCooldownSec: number;
  student: ((claims: Record<string, unknown>) => LtiStudentFields | undefined) | undefined;
  /** `lti.email` and `lti.emailStandIn`: the e-mail of a launch without one. */
  email: EmailSettings;
  rolesWithoutContext: RolesWithoutContext;
  framedLaunch: "new-window" | "frame";
  organizationFor: OrganizationFor;
  /** Undefined: the default (a class linked to this course or to none). */
  canLink: CanLink | undefined;
  /** `lti.gradebook`; undefined: off. */
  gradebook: GradebookSettings | undefined;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function resolveLtiSettings(value: unknown, problems: ProblemList): LtiSettings | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object") {
    problems.add("lti", "must be an object { keys, registrations }.", "See docs/lti.md, or leave lti out to turn LMS launches off.");
    return undefined;
  }
  const o = value as Partial<LtiOptions>;
  const keys = readToolKeys(o.keys, problems);
  const registrations = readRegistrations(o.registrations, problems);
  const dynamicRegistration = readDynamicRegistration(o.dynamicRegistration, problems);

  let toolUrl: string | undefined;
  if (o.toolUrl !== undefined) {
    const u = typeof o.toolUrl === "string" && URL.canParse(o.toolUrl) ? new URL(o.toolUrl) : undefined;
    if (!u || !(u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK.has(u.hostname))) || u.search || u.hash || u.username) {
      problems.add("lti.toolUrl", "must be the mount's public https URL (http only for localhost), with no query or fragment.", 'Use e.g. "https://app.example.edu/oral", or leave it out to derive it from each request.');
    } else toolUrl = u.href.replace(/\/+$/, "");
  }
  const seconds = (name: "clockToleranceSec" | "stateTtlSec" | "keySetCooldownSec", fallback: number, min: number, max: number): number => {
    const v = o[name];
    if (v === undefined) return fallback;
    if (typeof v === "number" && Number.isInteger(v) && v >= min && v <= max) return v;
    problems.add(`lti.${name}`, `must be a whole number of seconds from ${min} to ${max}.`, `Leave it out for ${fallback}.`);
    return fallback;
  };
  const clockToleranceSec = seconds("clockToleranceSec", 60, 0, 300);
  const stateTtlSec = seconds("stateTtlSec", 600, 60, 3600);
  const keySetCooldownSec = seconds("keySetCooldownSec", 30, 0, 300);
  const loginLimit = readLoginLimit(o.loginLimit, problems);
  if (o.student !== undefined && typeof o.student !== "function") problems.add("lti.student", "must be a function (claims) => student.", "Pass a function or leave it out for the default.");
  if (o.organizationFor !== undefined && typeof o.organizationFor !== "function") problems.add("lti.organizationFor", "must be a function.", "Pass a function or leave it out for the router's platform.");
  if (o.canLink !== undefined && typeof o.canLink !== "function") problems.add("lti.canLink", "must be a function (claims, { examId, classId, organization, linkedTo }) => boolean.", "Pass a function or leave it out for the default (a class linked to this course or to none yet).");
  const framedLaunch = o.framedLaunch ?? "new-window";
  if (framedLaunch !== "new-window" && framedLaunch !== "frame") problems.add("lti.framedLaunch", 'must be "new-window" or "frame".', 'Leave it out for "new-window".');
  const email = readEmailSettings(o.email, o.emailStandIn, problems);
  const rolesWithoutContext = o.rolesWithoutContext ?? "learner";
  if (rolesWithoutContext !== "learner" && rolesWithoutContext !== "institution-instructor") {
    problems.add("lti.rolesWithoutContext", 'must be "learner" or "institution-instructor".', 'Leave it out for "learner".');
  }
  const gradebook = readGradebookOptions(o.gradebook, problems);
  if (!keys || !registrations) return undefined;
  return {
    keys, registrations, dynamicRegistration, toolUrl, clockToleranceSec, stateTtlSec, loginLimit, keySetCooldownSec, framedLaunch, email,
    rolesWithoutContext: rolesWithoutContext === "institution-instructor" ? rolesWithoutContext : "learner",
    student: typeof o.student === "function" ? o.student : undefined,
    organizationFor: typeof o.organizationFor === "function" ? o.organizationFor : () => undefined,
    canLink: typeof o.canLink === "function" ? o.canLink : undefined,
    gradebook,
  };
}
