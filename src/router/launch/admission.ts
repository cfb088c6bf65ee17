/**
 * Admission to a launch: who is launching, which exam, and may they. The student is
 * parsed here, once, with the platform's `StudentIdentity` schema; everything after
 * (pre-warmed tokens, the sign-in call) trusts that parse instead of validating again.
 */
import type { Request, Response } from "express";
import { StudentIdentity } from "../../platform/schemas.js";
import type { LaunchContext } from "../shared/options.js";
import { EXAM_ID_PATTERN, type ExamClass, type ExamDirectory } from "../shared/exam-directory.js";
import { sendPage } from "../shared/html.js";
import { userOf } from "../shared/user.js";
import { studentFromUser } from "../../identity/student-from-user.js";
import type { LaunchOutcome } from "./pages.js";
import type { LaunchSettings } from "./settings.js";
import type { ExamKind } from "../../store/types.js";
import { launchedId, launchPath } from "../shared/exam-page.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";

const FIELD_NAMES: Record<string, string> = {
  email: "e-mail address",
  firstName: "first name",
  lastName: "last name",
  orgInternalId: "user id",
};

/**
 * Who an LTI exam link launches, handed to the launch as an argument by the link's route
 * (lti/open-link.ts): the student the verified LMS launch was mapped to, and the claims
 * kept for `canLaunch` (asked with `via: "lti"`). It stands for `req.user`: nobody is
 * "signed out" of a link, and `student` (the option) is not asked.
 */
export interface LinkedLaunch {
  student: Partial<StudentIdentity>;
  claims?: Record<string, unknown> | undefined;
}

export interface Admitted {
  examId: string;
  exam: ExamClass;
  student: StudentIdentity;
}

/** Logs a launch's outcome; the route's `done`. */
export type LaunchLog = (req: Request, outcome: LaunchOutcome, status: number, started: number, extra?: Record<string, unknown>) => void;

/**
 * Nobody is signed in: the login page (`loginUrl`, back to this launch after) or a 401
 * page, and the status sent; undefined when someone is. Asked first, before anything
 * else about the launch, the organization included (its resolver may need the user).
 */
export function answerSignedOut(settings: LaunchSettings, req: Request, res: Response, kind: ExamKind): number | undefined {
  if (userOf(req)) return undefined;
  if (settings.loginUrl) {
    // Only the path on this site: an absolute returnTo would be an open redirect.
    const returnTo = launchPath(req.baseUrl, kind, launchedId(req.params));
    const sep = settings.loginUrl.includes("?") ? "&" : "?";
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.redirect(303, `${settings.loginUrl}${sep}returnTo=${encodeURIComponent(returnTo)}`);
    return 303;
  }
  sendPage(res, { status: 401, title: "Please sign in", message: "Sign in to your account, then open the exam link again." });
  return 401;
}

/** Answers the request itself (and returns undefined) when the launch stops here. `linked`: an LTI exam link's launch. */
export async function admit(
  settings: LaunchSettings, directory: ExamDirectory, organizationIdOf: OrganizationIdOf, done: LaunchLog, req: Request, res: Response,
  started: number, kind: ExamKind = "oral", linked?: LinkedLaunch,
): Promise<Admitted | undefined> {
  const examId = launchedId(req.params);
  const signedOut = linked ? undefined : answerSignedOut(settings, req, res, kind);
  if (signedOut !== undefined) return void done(req, "login_required", signedOut, started);
  if (!EXAM_ID_PATTERN.test(examId)) {
    sendPage(res, { status: 400, title: "Not an exam link", message: "This link does not point to an exam. Check the link you were given." });
    return void done(req, "bad_exam_id", 400, started);
  }
  const exam = await directory.classOf(organizationIdOf(req), examId, { req, cached: true });
  // An exam of the other kind is not this link's exam: its page would not open it.
  if (!exam || (exam.kind !== undefined && exam.kind !== kind)) {
    sendPage(res, { status: 404, title: "Exam not found", message: "We could not find this exam. It may have been removed; ask your instructor for a new link." });
    return void done(req, "unknown_exam", 404, started);
  }
  const parsed = StudentIdentity.safeParse((linked ? linked.student : await (settings.student ?? studentFromRequest)(req)) ?? {});
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "student")))];
    const named = fields.map((f) => `${FIELD_NAMES[f] ?? f} (${f})`).join(", ");
    sendPage(res, { status: 400, kind: "profile_incomplete", title: "Your account is missing information", message: `The exam needs your ${named}. Ask your administrator to complete your profile.` });
    return void done(req, "student_incomplete", 400, started, { fields });
  }
  const student = parsed.data;
  const ctx: LaunchContext = {
    examId, classId: exam.classId, courseId: exam.courseId, student, ...(linked ? { via: "lti" as const, claims: linked.claims ?? {} } : {}),
  };
  if (settings.canLaunch && !(await settings.canLaunch(req, ctx))) {
    sendPage(res, { status: 403, title: "You cannot take this exam", message: "Your account is not enrolled for this exam. Ask your instructor if you think this is wrong." });
    return void done(req, "forbidden", 403, started, { user: student.orgInternalId, student });
  }
  return { examId, exam, student };
}

/**
 * The default student mapper: `req.user` as real login strategies leave it (a flat
 * record, passport's normalized profile, ID-token claims, SAML or LDAP attributes), read
 * by the exported `studentFromUser`.
 */
function studentFromRequest(req: Request): Partial<StudentIdentity> | undefined {
  return studentFromUser(userOf(req));
}
