/**
 * The tool's `LtiDeepLinkingResponse` (Deep Linking 2.0 §4.5; 1EdTech Security Framework
 * §5.2): a JWT signed RS256 by the tool's first key (its `kid` in the header, so the LMS
 * finds it in `/lti/jwks.json`), `iss` = the client id, `aud` = the LMS issuer, a fresh
 * nonce, the deployment, `data` echoed unaltered, and one `ltiResourceLink` item whose
 * custom parameter names the exam, with a `lineItem` (label, `scoreMaximum`, `resourceId` =
 * the exam id, `tag`) when the gradebook is on. It lives five minutes: long enough for the form post.
 */
import { submissionReviewOf } from "../gradebook/ags.js";
import { SignJWT } from "jose";
import { randomId } from "../../core/random-id.js";
import { LTI } from "../shared/claims.js";
import type { CatalogExam } from "./catalog.js";
import type { DeepLinkSettings } from "../options/deep-link-settings.js";
import type { ToolKeys } from "../lms/tool-keys.js";

export const DL = "https://purl.imsglobal.org/spec/lti-dl/claim/";
const LIFETIME_SEC = 300;

export interface ResponseInput {
  keys: ToolKeys;
  issuer: string;
  clientId: string;
  deploymentId: string;
  settings: Pick<DeepLinkSettings, "target" | "data">;
  exam: CatalogExam;
  /** The tool's launch URL: the link's target. */
  launchUrl: string;
  /** The line item the LMS makes for the link (the gradebook's column); undefined: none asked for. */
  lineItem?: { scoreMaximum: number; tag: string };
}

/** The one content item placing `exam`. */
export function contentItem(exam: CatalogExam, launchUrl: string, target: DeepLinkSettings["target"], lineItem?: ResponseInput["lineItem"]): Record<string, unknown> {
  const what = exam.kind === "roleplay" ? "Role-play" : "Oral exam";
  return {
    type: "ltiResourceLink",
    title: exam.name,
    text: `${what} of ${exam.className} (${exam.courseName})`,
    url: launchUrl,
    custom: exam.kind === "roleplay" ? { roleplay_id: exam.id } : { exam_id: exam.id },
    ...(target === "window" ? { window: { targetName: "_blank" } } : { iframe: {} }),
    // The gradebook's column, named by the exam (resourceId) and tagged as the tool's own.
    // submissionReview: the gradebook's "view submission" opens the learner's record here (Submission Review 1.0).
    ...(lineItem ? { lineItem: { label: exam.name, scoreMaximum: lineItem.scoreMaximum, resourceId: exam.id, tag: lineItem.tag, submissionReview: submissionReviewOf(launchUrl) } } : {}),
  };
}

export function signDeepLinkResponse(input: ResponseInput): Promise<string> {
  const { kid, key } = input.keys.signing();
  const claims: Record<string, unknown> = {
    nonce: randomId(24),
    [`${LTI}deployment_id`]: input.deploymentId,
    [`${LTI}message_type`]: "LtiDeepLinkingResponse",
    [`${LTI}version`]: "1.3.0",
    [`${DL}content_items`]: [contentItem(input.exam, input.launchUrl, input.settings.target, input.lineItem)],
  };
  if (input.settings.data) claims[`${DL}data`] = input.settings.data.value;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
    .setIssuer(input.clientId)
    .setAudience(input.issuer)
    .setIssuedAt()
    .setExpirationTime(`${LIFETIME_SEC}s`)
    .sign(key);
}
