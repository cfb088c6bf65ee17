/**
 * The names `lti` and each of its `registrations` may use (TypeScript checks each list
 * against its type). Any other name is a mistake (`tokenURL` for `tokenUrl` left the
 * gradebook without a token URL, failing only later, at the LMS), so it stops start-up
 * with the name meant. A name added to the types must be added here: the build says so.
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { refuseUnknown } from "../../core/option-schema.js";
import type { LtiOptions, LtiRegistration } from "../options/options.js";

const LTI_NAMES = Object.keys({
  keys: true, registrations: true, dynamicRegistration: true, store: true, toolUrl: true, keySetCooldownMs: true, clockToleranceMs: true, stateTtlMs: true,
  keySetCooldownSec: true, clockToleranceSec: true, stateTtlSec: true, loginLimit: true, student: true, email: true, emailStandIn: true,
  roster: true, rolesWithoutContext: true, framedLaunch: true, organizationFor: true, canLink: true, canCopy: true, gradebook: true, allowLoopbackHttp: true, userAgent: true,
} satisfies Record<keyof LtiOptions, true>);

const REGISTRATION_NAMES = Object.keys({
  issuer: true, clientId: true, authorizationUrl: true, jwksUrl: true, tokenUrl: true, deployments: true,
} satisfies Record<keyof LtiRegistration, true>);

/** Each unknown name in `lti` and in each entry of `lti.registrations`: one problem, with the name meant. */
export function refuseUnknownLtiNames(lti: object, problems: ProblemList): void {
  refuseUnknown(lti, LTI_NAMES, problems, "lti");
  const registrations = (lti as { registrations?: unknown }).registrations;
  if (!Array.isArray(registrations)) return;
  registrations.forEach((entry: unknown, i) => {
    if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) refuseUnknown(entry, REGISTRATION_NAMES, problems, `lti.registrations[${i}]`);
  });
}
