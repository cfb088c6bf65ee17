/**
 * The student a learner's launch signs in, checked at `POST /lti/launch` against what the
 * platform's sign-in requires (the router's own `StudentIdentity`), so a launch that
 * could not sign the student in is refused there, with a page naming the LMS setting
 * to change, instead of after the student clicks *Open the exam*. The mapping is
 * `lti.student` or the default (student.ts); a missing e-mail is asked of `lti.email`,
 * then the opt-in stand-in (student-email.ts).
 */
import type { Logger } from "../../core/logger.js";
import { isText } from "../../core/text.js";
import { StudentIdentity } from "../../platform/schemas.js";
import { privacySettingAdvice } from "./lms-advice.js";
import type { LtiStudentFields } from "../options/options.js";
import type { Refusal } from "../shared/refusal.js";
import type { LtiSettings } from "../settings/settings.js";
import { fallbackEmail } from "./student-email.js";
import { studentOf } from "./student.js";
import type { LaunchClaims } from "./typed-launch.js";

const FIELD_NAMES: Record<string, string> = { email: "e-mail address", firstName: "first name", lastName: "last name", orgInternalId: "user id" };
const CLAIM_NAMES: Record<string, string> = { email: "email", firstName: "given_name/name", lastName: "family_name/name", orgInternalId: "sub" };

export async function studentOfLaunch(settings: Pick<LtiSettings, "student" | "email">, launch: LaunchClaims, organization: string | undefined, logger: Logger): Promise<{ student: LtiStudentFields } | { refusal: Refusal }> {
  const mapped = { ...((settings.student ? settings.student(launch.forHooks) : studentOf(launch)) ?? {}) };
  if (!isText(mapped.email, Infinity, { trim: true })) {
    let found: Awaited<ReturnType<typeof fallbackEmail>>;
    try {
      found = await fallbackEmail(settings.email, launch, organization);
    } catch (error) {
      logger.error({ event: "lti_email_lookup_failed", error: (error as Error)?.message }, "lti.email failed");
      return { refusal: { status: 503, check: "email_lookup", title: "Your e-mail address could not be looked up", message: "Please open the exam again in a moment.", forAdministrator: "The tool's e-mail lookup (lti.email) failed; see the tool's log." } };
    }
    if (found.from === "stand_in") logger.info({ event: "lti_email_stand_in" }, "LTI learner without an e-mail: signed in with the stand-in address (lti.emailStandIn)");
    mapped.email = found.email;
  }
  const parsed = StudentIdentity.safeParse(mapped);
  if (parsed.success) return { student: parsed.data };
  const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "student")))];
  const absent = fields.filter((f) => !isText(mapped[f as keyof LtiStudentFields], Infinity, { trim: true }));
  const emailOnly = fields.length === 1 && fields[0] === "email" && absent.length === 1;
  const named = fields.map((f) => `${FIELD_NAMES[f] ?? f} (${CLAIM_NAMES[f] ?? f})`).join(", ");
  const check = emailOnly ? "email_missing" : absent.length > 0 ? "student_fields_missing" : "student_fields_invalid";
  const emailHint = fields.includes("email") ? " The tool's administrator may instead supply the e-mail with lti.email, or opt into lti.emailStandIn (docs/lti.md)." : "";
  return {
    refusal: {
      status: 400, check, detail: { fields },
      title: emailOnly ? "Your LMS did not share your e-mail address" : "Your LMS did not share what the exam needs",
      message: `The exam service needs your ${fields.map((f) => FIELD_NAMES[f] ?? f).join(", ")} to sign you in, and your LMS did not send ${fields.length > 1 ? "them" : "it"}${absent.length < fields.length ? " in a usable form" : ""}. Please tell your LMS administrator.`,
      forAdministrator: `The launch ${absent.length > 0 ? "lacks" : "has an unusable"} ${named}. ${privacySettingAdvice(launch.lms)}${emailHint}`,
    },
  };
}
