/**
 * Which LMS sent a launch, and the setting its administrator changes so launches carry
 * the user's name and e-mail. The LMS is told by its issuer (Canvas, Blackboard and
 * Schoology cloud issuers), its own claims (Canvas, Brightspace) or the standard
 * `tool_platform.product_family_code`; when none says, the advice names every LMS's setting.
 */
import type { LmsHints } from "./typed-launch.js";

export type LmsFamily = "canvas" | "moodle" | "brightspace" | "blackboard" | "schoology" | "openedx" | "sakai";

const SETTING: Record<LmsFamily, string> = {
  canvas: "Canvas: in Admin > Developer Keys, set the tool's LTI key Privacy Level to \"Public\" (names and e-mail).",
  moodle: "Moodle: in the external tool's settings, under Privacy, set \"Share launcher's name with tool\" and \"Share launcher's email with tool\" to \"Always\".",
  brightspace: "Brightspace: in the tool's LTI Advantage deployment, Security Settings, tick Name (first and last name) and Email.",
  blackboard: "Blackboard: in Administrator Panel > LTI Tool Providers > the tool, under \"User Fields to Send\", tick Name and Email Address.",
  schoology: "Schoology: in the app's LTI 1.3 configuration, set Privacy to \"Send Name and Email/Username of user who launches the tool\".",
  openedx: "Open edX: allow PII sharing for the course and tick the LTI component's \"Request user's email\" and \"Request user's username\".",
  sakai: "Sakai: in the LTI tool's settings, tick \"Send Names to External Tool\" and \"Send Email Addresses to External Tool\".",
};

const ISSUERS: [RegExp, LmsFamily][] = [
  [/^https:\/\/canvas(\.beta|\.test)?\.instructure\.com$/, "canvas"],
  [/^https:\/\/blackboard\.com$/, "blackboard"],
  [/^https:\/\/schoology\.schoology\.com$/, "schoology"],
];
const PRODUCTS: [RegExp, LmsFamily][] = [
  [/canvas/i, "canvas"], [/moodle/i, "moodle"], [/desire2learn|brightspace|d2l/i, "brightspace"],
  [/blackboard/i, "blackboard"], [/schoology/i, "schoology"], [/edx/i, "openedx"], [/sakai/i, "sakai"],
];

export function lmsFamily(lms: LmsHints): LmsFamily | undefined {
  const iss = lms.issuer?.replace(/\/+$/, "") ?? "";
  for (const [pattern, family] of ISSUERS) if (pattern.test(iss)) return family;
  if (lms.vendorClaims) return lms.vendorClaims;
  const code = lms.productFamilyCode;
  if (code !== undefined) for (const [pattern, family] of PRODUCTS) if (pattern.test(code)) return family;
  return undefined;
}

/** The LMS setting that makes launches carry names and e-mail: the sending LMS's, else every one's. */
export function privacySettingAdvice(lms: LmsHints): string {
  const family = lmsFamily(lms);
  return family ? SETTING[family] : `Depending on your LMS: ${Object.values(SETTING).join(" ")}`;
}
