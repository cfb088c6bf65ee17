/**
 * Whether the LMS that sent a launch consumes its `lti_message_hint` at first use, so a
 * login replayed with the same hint cannot work: Moodle's auth step unsets the hint's
 * launch id, Canvas answers `launch_no_longer_valid`. Told from the issuer (Canvas cloud's
 * own) or the launch's `tool_platform.product_family_code`, read from the id_token
 * before it is verified: it only decides which page the learner gets (a new-window link
 * replaying the login, or words to open the activity again), never what is accepted.
 */
import { decodeJwt } from "jose";
import { readLaunchClaims } from "./typed-launch.js";

/** `product_family_code`s of LMSs whose hints are single-use. */
const SINGLE_USE_FAMILIES = new Set(["moodle", "canvas"]);
/** Canvas cloud's issuers (production, beta, test). */
const CANVAS_ISSUERS = /^https:\/\/canvas(\.beta|\.test)?\.instructure\.com$/;

export function consumesMessageHint(issuer: string, idToken: string): boolean {
  if (CANVAS_ISSUERS.test(issuer)) return true;
  try {
    const family = readLaunchClaims(decodeJwt(idToken)).lms.productFamilyCode;
    return family !== undefined && SINGLE_USE_FAMILIES.has(family.toLowerCase());
  } catch {
    return false;
  }
}
