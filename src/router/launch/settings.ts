/**
 * The launch feature's settings: the options `GET /launch/:examId` reads, resolved and
 * checked. Problems are added to the router's list (one ConfigurationError for all).
 */
import type { Request } from "express";
import type { ProblemList } from "../../core/configuration-error.js";
import type { StudentIdentity } from "../../platform/schemas.js";
import type { LaunchContext, MaybePromise, OralAssessmentsOptions } from "../shared/options.js";
import { ANY_SIGNED_IN_USER, checkOrigin, optionalFunction, wholeMs } from "../shared/checks.js";
import { studentFromUser } from "../../identity/student-from-user.js";
import { userOf } from "../shared/user.js";

export interface LaunchSettings {
  /** Undefined: students go to the platform's own host, with no token. */
  examHost: string | undefined;
  ticketParam: string;
  loginUrl: string | undefined;
  student: (req: Request) => MaybePromise<Partial<StudentIdentity> | undefined>;
  /** Undefined only for `"any-signed-in-user"`: the integrator accepted that every signed-in user may launch. */
  canLaunch: ((req: Request, ctx: LaunchContext) => MaybePromise<boolean>) | undefined;
  launchWaitMs: number;
  waitingPageAfterMs: number;
}

/**
 * The default student mapper: `req.user` as real login strategies leave it (a flat
 * record, passport's normalized profile, ID-token claims, SAML or LDAP attributes), read
 * by the exported `studentFromUser`.
 */
export function studentFromRequest(req: Request): Partial<StudentIdentity> | undefined {
  return studentFromUser(userOf(req));
}

export function resolveLaunchSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList): LaunchSettings {
  const examHost = o.examHost === undefined ? undefined : checkOrigin(o.examHost, "examHost", problems, true);
  const student = optionalFunction(problems, "student", o.student, "Pass a function or leave student out for the default.");
  const canLaunch = resolveCanLaunch(o.canLaunch, problems);

  const ticketParam = o.ticketParam ?? "__clerk_ticket";
  if (typeof ticketParam !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(ticketParam)) {
    problems.add("ticketParam", "must be 1–64 characters of letters, digits, '_', '.' or '-'.", 'Leave it out for "__clerk_ticket", or name the parameter your exam page reads.');
  }

  let loginUrl: string | undefined;
  if (o.loginUrl !== undefined) {
    const v = o.loginUrl;
    if (typeof v === "string" && v.startsWith("/") && !v.startsWith("//") && !v.includes("\\")) loginUrl = v;
    else if (typeof v === "string" && /^https?:\/\//i.test(v) && URL.canParse(v)) loginUrl = v;
    else problems.add("loginUrl", "must be a path on this site (\"/login\") or an absolute http(s) URL.", 'Use e.g. loginUrl: "/login".');
  }

  const launchWaitMs = wholeMs(problems, "launchWaitMs", o.launchWaitMs, 120_000, 1_000);
  const waitingPageAfterMs = wholeMs(problems, "waitingPageAfterMs", o.waitingPageAfterMs, 2_000, 0);
  if (waitingPageAfterMs > 30_000) {
    problems.add("waitingPageAfterMs", "must be at most 30000: proxies and browsers give up on requests held longer.", "Use a few seconds, e.g. 2000.");
  }
  return { examHost, ticketParam, loginUrl, student: student ?? studentFromRequest, canLaunch, launchWaitMs, waitingPageAfterMs };
}

/**
 * `canLaunch` has no silent default: without it every signed-in user could launch every
 * known exam and be enrolled in its class on the platform. The integrator either checks
 * the roster or says, in so many words, that anyone signed in may launch.
 */
function resolveCanLaunch(value: OralAssessmentsOptions["canLaunch"] | undefined, problems: ProblemList): LaunchSettings["canLaunch"] {
  if (value === ANY_SIGNED_IN_USER) return undefined;
  if (typeof value === "function") return value;
  const fix = "Pass a roster check, e.g. canLaunch: async (req, { classId }) => roster.has(classId, req.user.id), " +
    `or canLaunch: "${ANY_SIGNED_IN_USER}" to let every signed-in user launch every exam (and be enrolled in its class) on purpose.`;
  if (value === undefined) problems.add("canLaunch", "is missing: who may launch an exam must be decided explicitly.", fix);
  else problems.add("canLaunch", `must be a function or "${ANY_SIGNED_IN_USER}", got ${typeof value === "string" ? JSON.stringify(value) : typeof value}.`, fix);
  return undefined;
}
