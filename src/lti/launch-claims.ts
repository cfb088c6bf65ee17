/**
 * The few verified claims kept past the launch (with a learner's exam link for
 * `canLaunch`, with an instructor's pending course offer for `canLink`): who (`sub`,
 * `iss`, `aud`), where (deployment, context, resource link), as what (roles) and the SIS
 * id. Not the whole token: an exam link lives in the fleet's store, where a Canvas launch
 * of 20 KB would be waste. Roles are capped at 50, strings at 255 characters.
 */
import { isText } from "../core/text.js";
import { CLAIM } from "./claims.js";

/** A claim string kept: up to 255 characters, an empty one included (it is what the LMS sent). */
const text = (v: unknown) => isText(v, 255, { min: 0 });

function pick(value: unknown, fields: readonly string[]): Record<string, unknown> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (value as Record<string, unknown>)[f];
    if (text(v)) out[f] = v;
    else if (Array.isArray(v)) out[f] = v.filter(text).slice(0, 10);
  }
  return out;
}

/** The claims `canLaunch` (as `ctx.claims`) and `canLink` see after the launch itself. */
export function keptClaims(claims: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ["iss", "sub", "aud", "azp", CLAIM.deploymentId, CLAIM.messageType]) {
    const v = claims[name];
    if (text(v)) out[name] = v;
    else if (Array.isArray(v)) out[name] = v.filter(text).slice(0, 10);
  }
  const roles = claims[CLAIM.roles];
  if (Array.isArray(roles)) out[CLAIM.roles] = roles.filter(text).slice(0, 50);
  const context = pick(claims[CLAIM.context], ["id", "label", "title", "type"]);
  if (context) out[CLAIM.context] = context;
  const link = pick(claims[CLAIM.resourceLink], ["id", "title"]);
  if (link) out[CLAIM.resourceLink] = link;
  const lis = pick(claims[CLAIM.lis], ["person_sourcedid", "course_offering_sourcedid", "course_section_sourcedid"]);
  if (lis) out[CLAIM.lis] = lis;
  return out;
}
