/**
 * The student of a learner's launch, from the verified claims. Default mapping: `email`,
 * `given_name`, `family_name`; `orgInternalId` from the `lis.person_sourcedid` claim (the
 * SIS id schools key rosters by), else `sub` (stable per user within the issuer).
 */
import { CLAIM } from "./claims.js";
import type { LtiStudentFields } from "./options.js";

export function studentFromClaims(claims: Record<string, unknown>): LtiStudentFields {
  const text = (v: unknown) => (typeof v === "string" && v.trim().length > 0 ? v.trim() : undefined);
  const lis = claims[CLAIM.lis] as { person_sourcedid?: unknown } | undefined;
  return {
    email: text(claims.email),
    firstName: text(claims.given_name),
    lastName: text(claims.family_name),
    orgInternalId: text(lis?.person_sourcedid) ?? text(claims.sub),
  };
}
