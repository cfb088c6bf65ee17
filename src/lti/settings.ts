/**
 * The `lti` option read into settings, every mistake added to the router's problem list
 * (one ConfigurationError for the whole router).
 */
import type { ProblemList } from "../core/configuration-error.js";
import { z } from "zod";
import { warnDeprecated } from "../core/deprecation.js";
import type { Logger } from "../core/logger.js";
import { checked, fn, objectOrAbsent, optional, readOptions, wholeNumber, withDefault } from "../core/option-schema.js";
import type { CanLink, LtiOptions, OrganizationFor } from "./options.js";
import { readDynamicRegistration } from "./dynamic-registration-settings.js";
import { readLoginLimit } from "./login-limit.js";
import { readRegistrations } from "./registrations.js";
import { readLtiRoster } from "./roster-options.js";
import { readEmailSettings } from "./student-email.js";
import { readToolKeys } from "./tool-keys.js";
import { isHttpsOrLoopback } from "../core/secure-url.js";
import { readGradebookOptions } from "./gradebook/options.js";

function checkToolUrl(value: unknown, option: string, problems: ProblemList): string | undefined {
  const u = typeof value === "string" && URL.canParse(value) ? new URL(value) : undefined;
  if (u && isHttpsOrLoopback(u) && !u.search && !u.hash && !u.username) return u.href.replace(/\/+$/, "");
  problems.add(option, "must be the mount's public https URL (http only for localhost), with no query or fragment.", 'Use e.g. "https://app.example.edu/oral", or leave it out to derive it from each request.');
  return undefined;
}

/** Every LTI duration in ms; the earlier names in seconds are deprecated aliases (`SECONDS_ALIASES`). */
export const ltiSchema = {
  toolUrl: optional(checked(checkToolUrl)),
  clockToleranceMs: withDefault(wholeNumber(0, 300_000, "ms"), 60_000),
  stateTtlMs: withDefault(wholeNumber(60_000, 3_600_000, "ms"), 600_000),
  keySetCooldownMs: withDefault(wholeNumber(0, 300_000, "ms"), 30_000),
  clockToleranceSec: optional(wholeNumber(0, 300), { fix: "Use clockToleranceMs (ms) instead: clockToleranceSec is deprecated." }),
  stateTtlSec: optional(wholeNumber(60, 3600), { fix: "Use stateTtlMs (ms) instead: stateTtlSec is deprecated." }),
  keySetCooldownSec: optional(wholeNumber(0, 300), { fix: "Use keySetCooldownMs (ms) instead: keySetCooldownSec is deprecated." }),
  student: optional(fn<NonNullable<LtiOptions["student"]>>("a function (claims) => student"), { fix: "Pass a function or leave it out for the default." }),
  /** Default: the router's own organization (`() => undefined`; many organizations: see router/settings.ts). */
  organizationFor: optional(fn<OrganizationFor>(), { fix: "Pass a function or leave it out for the router's platform." }),
  canLink: optional(fn<CanLink>("a function (claims, { examId, classId, organization, linkedTo }) => boolean"),
    { fix: "Pass a function or leave it out for the default (a class linked to this course or to none yet)." }),
  framedLaunch: withDefault(z.enum(["new-window", "frame"], { error: 'must be "new-window" or "frame".' }), "new-window"),
  rolesWithoutContext: withDefault(z.enum(["learner", "institution-instructor"], { error: 'must be "learner" or "institution-instructor".' }), "learner"),
};

/** The deprecated seconds names and their `…Ms` successors. */
const SECONDS_ALIASES = [["clockToleranceSec", "clockToleranceMs"], ["stateTtlSec", "stateTtlMs"], ["keySetCooldownSec", "keySetCooldownMs"]] as const;

/**
 * The schema's fields (the seconds names folded into the ms ones), and each part's
 * settings: `registrations` are `lti.registrations` only (the routes look the store up too,
 * registration-source.ts); `email` is `lti.email` and `lti.emailStandIn`; `gradebook`
 * undefined is off.
 */
export type LtiSettings = NonNullable<ReturnType<typeof resolveLtiSettings>>;

export function resolveLtiSettings(value: unknown, problems: ProblemList) {
  if (value === undefined) return undefined;
  if (!objectOrAbsent(value, "lti", problems, "must be an object { keys, registrations }.", "See docs/lti.md, or leave lti out to turn LMS launches off.")) return undefined;
  const o = value as Partial<LtiOptions>;
  const keys = readToolKeys(o.keys, problems);
  const registrations = readRegistrations(o.registrations, problems);
  const dynamicRegistration = readDynamicRegistration(o.dynamicRegistration, problems);
  const { clockToleranceSec, stateTtlSec, keySetCooldownSec, ...read } = readOptions(ltiSchema, o, problems, "lti");
  const seconds = { clockToleranceSec, stateTtlSec, keySetCooldownSec };
  for (const [old, name] of SECONDS_ALIASES) {
    if (o[old] !== undefined && o[name] !== undefined) problems.add(`lti.${old}`, `is the deprecated name of ${name} (in seconds), and both are set.`, `Keep only ${name}.`);
    else if (seconds[old] !== undefined) read[name] = seconds[old] * 1000;
  }
  const loginLimit = readLoginLimit(o.loginLimit, problems);
  const email = readEmailSettings(o.email, o.emailStandIn, problems);
  const roster = readLtiRoster(o.roster, problems);
  const gradebook = readGradebookOptions(o.gradebook, problems);
  if (!keys || !registrations) return undefined;
  const organizationFor: OrganizationFor = read.organizationFor ?? (() => undefined);
  return { ...read, organizationFor, keys, registrations, dynamicRegistration, loginLimit, email, roster, gradebook };
}

/** A deprecated seconds name still works, and says so at start-up (once per process per name). */
export function warnIfLtiSeconds(value: unknown, logger: Logger): void {
  const o = (typeof value === "object" && value !== null ? value : {}) as Partial<LtiOptions>;
  for (const [old, name] of SECONDS_ALIASES) {
    if (o[old] === undefined) continue;
    warnDeprecated(logger, {
      event: "router_option_deprecated", option: `lti.${old}`, use: `lti.${name}`, code: `EOA_LTI_${old.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
      message: `oralAssessments()'s lti.${old} is deprecated: use lti.${name}, in milliseconds (every duration of the package is in ms).`,
    });
  }
}
