/**
 * The `lti` option read into settings, every mistake added to the router's problem list
 * (one ConfigurationError for the whole router).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { z } from "zod";
import { foldRenames, type Rename } from "../../core/deprecation.js";
import { flag, fn, objectOrAbsent, optional, readOptions, wholeNumber, withDefault, withMethods } from "../../core/option-schema.js";
import { LTI_STORE_METHODS, type LtiStore } from "../../store/lti-types.js";
import type { CanLink, LtiEmailLookup, LtiOptions, OrganizationFor } from "../options/options.js";
import { readDynamicRegistration } from "../options/dynamic-registration-settings.js";
import { foldLoginLimit, loginLimitOption } from "../options/login-limit.js";
import { Registrations, registrationsSchema } from "../lms/registrations.js";
import { ltiRosterOption } from "../options/roster-options.js";
import { emailStandInSchema } from "../options/email-stand-in.js";
import { toolKeysSchema } from "../lms/tool-keys.js";
import { httpsUrl } from "../shared/shared-options.js";
import { readGradebookOptions } from "../options/gradebook-options.js";
import { refuseUnknownLtiNames } from "./option-names.js";

const TOOL_URL = "must be the mount's public https URL (http only for localhost), with no query or fragment.";

/** Every LTI duration in ms; the earlier names in seconds are deprecated aliases (`LTI_RENAMES`). */
export const ltiSchema = {
  toolUrl: optional(httpsUrl(TOOL_URL, (u) => !u.search && !u.hash && !u.username).transform((url) => new URL(url).href.replace(/\/+$/, "")),
    { fix: 'Use e.g. "https://app.example.edu/oral", or leave it out to derive it from each request.' }),
  registrations: registrationsSchema,
  store: optional(withMethods<LtiStore>("LtiStore", [...LTI_STORE_METHODS, "init", "close"]),
    { fix: "Pass memoryStore(), sqliteStore({ filename }) or postgresStore({ connectionString }), or leave it out to keep LTI in the router's store." }),
  clockToleranceMs: withDefault(wholeNumber(0, 300_000, "ms"), 60_000),
  stateTtlMs: withDefault(wholeNumber(60_000, 3_600_000, "ms"), 600_000),
  keySetCooldownMs: withDefault(wholeNumber(0, 300_000, "ms"), 30_000),
  clockToleranceSec: optional(wholeNumber(0, 300), { fix: "Use clockToleranceMs (ms) instead: clockToleranceSec is deprecated." }),
  stateTtlSec: optional(wholeNumber(60, 3600), { fix: "Use stateTtlMs (ms) instead: stateTtlSec is deprecated." }),
  keySetCooldownSec: optional(wholeNumber(0, 300), { fix: "Use keySetCooldownMs (ms) instead: keySetCooldownSec is deprecated." }),
  student: optional(fn<NonNullable<LtiOptions["student"]>>("a function (claims) => student"), { fix: "Pass a function or leave it out for the default." }),
  email: optional(fn<LtiEmailLookup>("a function (claims, { organization }) => e-mail | undefined (may be async)"),
    { fix: "Pass a function, or leave it out to refuse launches without an e-mail." }),
  emailStandIn: emailStandInSchema,
  /** Default: the router's own organization (`() => undefined`; many organizations: see router/settings.ts). */
  organizationFor: optional(fn<OrganizationFor>(), { fix: "Pass a function or leave it out for the router's platform." }),
  canLink: optional(fn<CanLink>("a function (claims, { examId, classId, organization, linkedTo, purpose, course, linkedCourses }) => boolean"),
    { fix: "Pass a function or leave it out for the default (only a class already linked to this course)." }),
  canCopy: optional(fn<CanLink>("a function (claims, { examId, classId, organization, linkedTo, purpose, course, linkedCourses }) => boolean"),
    { fix: "Pass a function or leave it out for the default (the LMS user who linked the original, or whom canLink allows, may copy it)." }),
  framedLaunch: withDefault(z.enum(["new-window", "frame"], { error: 'must be "new-window" or "frame".' }), "new-window"),
  rolesWithoutContext: withDefault(z.enum(["learner", "institution-instructor"], { error: 'must be "learner" or "institution-instructor".' }), "learner"),
  allowLoopbackHttp: withDefault(flag(), false),
  userAgent: optional(z.string().regex(/^[\x20-\x7e]{1,200}$/, "must be 1-200 printable ASCII characters."),
    { fix: 'Use e.g. "ExampleU-Exams/1.0 (lms-admin@example.edu)", or leave it out.' }),
};

/** The deprecated seconds names (checked in seconds by the schema), read as their `…Ms` successors. */
export const LTI_RENAMES: Rename[] = (["clockTolerance", "stateTtl", "keySetCooldown"] as const).map((name) => ({
  old: `${name}Sec`, use: `${name}Ms`, toNew: (seconds) => seconds * 1000,
  code: `EOA_LTI_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}_SEC`,
  message: `oralAssessments()'s lti.${name}Sec is deprecated: use lti.${name}Ms, in milliseconds (every duration of the package is in ms).`,
}));

/**
 * The schema's fields (the seconds names folded into the ms ones, which are what to read),
 * and each part's settings: `registrations` are `lti.registrations` only (the routes look
 * the store up too, registration-source.ts); `email` is `lti.email` and
 * `lti.emailStandIn`; `loginLimit` the per-address bucket, whichever spelling gave it;
 * `gradebook` undefined is off.
 */
export type LtiSettings = NonNullable<ReturnType<typeof resolveLtiSettings>>;

export function resolveLtiSettings(value: unknown, problems: ProblemList) {
  if (value === undefined) return undefined;
  if (!objectOrAbsent(value, "lti", problems, "must be an object { keys, registrations }.", "See docs/lti.md, or leave lti out to turn LMS launches off.")) return undefined;
  const o = value as Partial<LtiOptions>;
  refuseUnknownLtiNames(o, problems);
  const { keys, email, emailStandIn, ...read } = readOptions({ keys: toolKeysSchema, ...ltiSchema }, o, problems, "lti");
  foldRenames(o, LTI_RENAMES, problems, "lti.", read);
  const registrations = new Registrations(read.registrations.map((r) => ({ ...r, tokenUrl: r.tokenUrl, active: true, acceptNewDeployments: false, organization: undefined,
    source: "options" as const, deployments: new Map<string, string | undefined>(r.deployments.map((d) => (typeof d === "string" ? [d, undefined] : [d.id, d.organization]))) })));
  const { loginLimit, roster } = readOptions({ loginLimit: loginLimitOption, roster: ltiRosterOption }, o, problems, "lti");
  const parts = {
    email: { lookup: email, standInDomain: emailStandIn?.domain },
    dynamicRegistration: readDynamicRegistration(o.dynamicRegistration, problems),
    loginLimit: foldLoginLimit(o.loginLimit, loginLimit, problems),
    roster,
    gradebook: readGradebookOptions(o.gradebook, problems),
  };
  const organizationFor: OrganizationFor = read.organizationFor ?? (() => undefined);
  return keys && { ...read, organizationFor, keys, registrations, ...parts };
}
