/**
 * `GET /launch/:examId`: the student's way into an exam. Finds the logged-in student,
 * checks they may launch, gets a one-time sign-in token (custom domain only) and
 * redirects (303) to the exam page. A browser route: it answers with a redirect or a
 * short HTML page, never JSON, and never holds a request for more than
 * `waitingPageAfterMs`.
 *
 * Where the token comes from, in order:
 * 1. a token pre-warmed for this student and exam (no platform call);
 * 2. the student's attempt already in flight (a double click, a second tab);
 * 3. a new attempt: one sign-in call at launch priority, bounded by `launchWaitMs`.
 * When the token is not there within `waitingPageAfterMs` (or the rate budget says it
 * will not be), the student gets a waiting page that refreshes itself to
 * `?wait=<id>`; that id is honoured only for the student it was made for.
 */
import type { Request, Response } from "express";
import { PlatformError, platformErrorFor } from "../../platform/errors.js";
import { SignInTokenRequest } from "../../platform/schemas.js";
import type { OralStore } from "../../store/types.js";
import { EXAM_ID_PATTERN, examClassOf, type ExamClass, type ExamClassCache } from "../shared/exam-directory.js";
import { asyncHandler } from "../shared/guards.js";
import { sendPage } from "../shared/html.js";
import {
  sendFailure, sendWaitExceeded, sendWaitingPage, sendWaitRefused, type LaunchOutcome, type PageResult,
} from "../launch/pages.js";
import { studentKey, type LaunchAttempt, type LaunchQueue } from "../launch/attempts.js";
import type { LaunchContext, RouterSettings, StudentIdentity } from "../options.js";
import type { Prewarmer } from "../prepare/preparer.js";
import { userOf } from "../shared/user.js";

export { EXAM_ID_PATTERN } from "../shared/exam-directory.js";
export type { LaunchOutcome } from "../launch/pages.js";

const StudentFields = SignInTokenRequest.pick({ email: true, firstName: true, lastName: true, orgInternalId: true });

const FIELD_NAMES: Record<string, string> = {
  email: "e-mail address",
  firstName: "first name",
  lastName: "last name",
  orgInternalId: "user id",
};

export interface LaunchDeps {
  queue: LaunchQueue;
  prewarmer: Prewarmer;
}

interface Admitted {
  examId: string;
  exam: ExamClass;
  student: StudentIdentity;
}

export function launchRoute(settings: RouterSettings, store: () => Promise<OralStore>, { queue, prewarmer }: LaunchDeps) {
  const { platform, logger } = settings;
  const examCache: ExamClassCache = new Map();

  function done(req: Request, outcome: LaunchOutcome, status: number, started: number, extra: Record<string, unknown> = {}): void {
    const entry = { event: "launch", outcome, status, examId: req.params.examId, durationMs: Math.round(performance.now() - started), ...extra };
    if (status >= 500) logger.warn(entry, `launch ${outcome}`);
    else if (outcome === "waiting" || outcome === "client_gone") logger.debug(entry, `launch ${outcome}`);
    else logger.info(entry, `launch ${outcome}`);
  }

  /**
   * The 303, written directly: `res.redirect` would re-encode a URL we built encoded
   * and negotiate a body nobody reads, which costs more than the rest of a prepared launch.
   */
  function redirect(res: Response, target: string): void {
    res.statusCode = 303;
    res.setHeader("Location", target);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("Content-Length", "0");
    res.end();
  }

  const examUrl = (examId: string, token: string) =>
    `${settings.examHost}/exam/${encodeURIComponent(examId)}?${settings.ticketParam}=${encodeURIComponent(token)}`;

  /** Who, which exam, and may they: answers the request itself when the launch stops here. */
  async function admit(req: Request, res: Response, started: number): Promise<Admitted | undefined> {
    const examId = String(req.params.examId ?? "");
    if (!userOf(req)) {
      if (settings.loginUrl) {
        // Only the path on this site: an absolute returnTo would be an open redirect.
        const returnTo = `${req.baseUrl}/launch/${encodeURIComponent(examId)}`;
        const sep = settings.loginUrl.includes("?") ? "&" : "?";
        res.setHeader("Cache-Control", "no-store");
        res.redirect(303, `${settings.loginUrl}${sep}returnTo=${encodeURIComponent(returnTo)}`);
        return void done(req, "login_required", 303, started);
      }
      sendPage(res, { status: 401, title: "Please sign in", message: "Sign in to your account, then open the exam link again." });
      return void done(req, "login_required", 401, started);
    }
    if (!EXAM_ID_PATTERN.test(examId)) {
      sendPage(res, { status: 400, title: "Not an exam link", message: "This link does not point to an exam. Check the link you were given." });
      return void done(req, "bad_exam_id", 400, started);
    }
    const exam = await examClassOf(settings, store, examId, req, examCache);
    if (!exam) {
      sendPage(res, { status: 404, title: "Exam not found", message: "We could not find this exam. It may have been removed; ask your instructor for a new link." });
      return void done(req, "unknown_exam", 404, started);
    }
    const parsed = StudentFields.safeParse((await settings.student(req)) ?? {});
    if (!parsed.success) {
      const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "student")))];
      const named = fields.map((f) => `${FIELD_NAMES[f] ?? f} (${f})`).join(", ");
      sendPage(res, { status: 400, title: "Your account is missing information", message: `The exam needs your ${named}. Ask your administrator to complete your profile.` });
      return void done(req, "student_incomplete", 400, started, { fields });
    }
    const student: StudentIdentity = parsed.data;
    const ctx: LaunchContext = { examId, classId: exam.classId, courseId: exam.courseId, student };
    if (settings.canLaunch && !(await settings.canLaunch(req, ctx))) {
      sendPage(res, { status: 403, title: "You cannot take this exam", message: "Your account is not enrolled for this exam. Ask your instructor if you think this is wrong." });
      return void done(req, "forbidden", 403, started, { user: student.orgInternalId });
    }
    return { examId, exam, student };
  }

  /**
   * Roughly how long a launch arriving now waits for its call to leave the rate budget:
   * what the window already holds plus the launches queued ahead, in whole windows, plus
   * a 429 pause. Taken before the launch's own call is queued (or sent).
   */
  function estimatedWaitMs(ahead: number): number {
    try {
      const s = platform.rateStats();
      const paused = s.pausedUntil === undefined ? 0 : Math.max(0, s.pausedUntil - Date.now());
      const queuedAhead = Math.max(0, ahead - s.inFlight);
      return paused + Math.floor((s.sentInWindow + queuedAhead) / Math.max(1, s.limit)) * s.windowMs;
    } catch {
      return 0; // a custom budget without stats: hold, then show the waiting page
    }
  }

  /** Holds the request on the attempt, then answers: redirect, waiting page, or failure. */
  async function follow(req: Request, res: Response, attempt: LaunchAttempt, holdMs: number, started: number, meta: Record<string, unknown>): Promise<void> {
    const launchHref = `${req.baseUrl}/launch/${encodeURIComponent(attempt.examId)}`;
    const result = await queue.wait(attempt, holdMs, (gone) => {
      res.once("close", gone);
      return () => res.off("close", gone);
    });
    const closed = res.writableEnded || res.destroyed || res.socket === null || res.socket.destroyed;
    if (result === "client_gone" || closed) {
      // Not claimed: the token (if any) waits for this student's next request.
      return done(req, "client_gone", 499, started, meta);
    }
    if (result === "hold_expired") {
      const refresh = `${launchHref}?wait=${queue.waitIdOf(attempt)}`;
      const page = sendWaitingPage(res, queue.ahead(attempt), refresh, settings.waitingPageAfterMs);
      return done(req, page.outcome, page.status, started, meta);
    }
    queue.claim(attempt);
    if (result.kind === "token") {
      redirect(res, examUrl(attempt.examId, result.token));
      return done(req, "redirected", 303, started, { ...meta, waitedMs: Date.now() - attempt.createdAt });
    }
    const error = result.error;
    if (!(error instanceof PlatformError)) throw error;
    let page: PageResult;
    if (error.kind === "timeout" && result.elapsedMs >= settings.launchWaitMs - 100) page = sendWaitExceeded(res, launchHref);
    else page = sendFailure(res, error, launchHref);
    done(req, page.outcome, page.status, started, { ...meta, kind: error.kind, code: error.code, platformStatus: error.status, requestId: error.requestId });
  }

  return asyncHandler(async (req: Request, res: Response) => {
    const started = performance.now();
    const admitted = await admit(req, res, started);
    if (!admitted) return;
    const { examId, exam, student } = admitted;
    const user = student.orgInternalId;

    if (settings.examHost === undefined) {
      // The platform's own host signs students in itself: no token needed.
      redirect(res, `${platform.platformOrigin}/exam/${encodeURIComponent(examId)}`);
      return done(req, "redirected", 303, started, { user, classId: exam.classId });
    }

    const userKey = studentKey(student);
    const launchHref = `${req.baseUrl}/launch/${encodeURIComponent(examId)}`;
    const waitId = req.query.wait;
    if (waitId !== undefined) {
      const attempt = queue.byWait(waitId);
      if (!attempt) {
        // Expired or already answered (a reload after the redirect): start over.
        res.setHeader("Cache-Control", "no-store");
        res.redirect(303, launchHref);
        return done(req, "wait_unknown", 303, started, { user });
      }
      if (attempt.userKey !== userKey || attempt.examId !== examId) {
        const page = sendWaitRefused(res, launchHref);
        return done(req, page.outcome, page.status, started, { user });
      }
      return follow(req, res, attempt, settings.waitingPageAfterMs, started, { user, classId: exam.classId, source: "wait" });
    }

    const prepared = prewarmer.take(examId, exam.classId, student);
    if (prepared !== undefined) {
      redirect(res, examUrl(examId, prepared));
      return done(req, "redirected", 303, started, { user, classId: exam.classId, source: "prepared" });
    }

    const estimateMs = estimatedWaitMs(queue.pendingCount);
    const { attempt, shared } = queue.join(examId, userKey, async (signal) => {
      // Through `request` rather than `students.createSignInToken`: the student was
      // validated above and the ids come from the store, and validating them all again
      // was a measurable share of a launch's cost (see `npm run bench`). Same auth,
      // budget, retries and errors.
      const { data } = await platform.request<{ token?: unknown } | undefined>("POST", "/students/sign-in-token",
        { ...student, classId: exam.classId, ...(exam.courseId ? { courseId: exam.courseId } : {}) },
        // The whole wait is bounded by launchWaitMs, not by the client's (shorter) deadline.
        { priority: "launch", signal, deadlineMs: settings.launchWaitMs });
      if (typeof data?.token !== "string" || data.token.length === 0) {
        throw platformErrorFor({ kind: "bad_response", message: "POST /students/sign-in-token: the answer has no token.", method: "POST", path: "/students/sign-in-token" });
      }
      return data.token;
    });
    const hold = estimateMs > settings.waitingPageAfterMs ? 0 : settings.waitingPageAfterMs;
    return follow(req, res, attempt, hold, started, { user, classId: exam.classId, source: shared ? "shared" : "on_demand" });
  });
}
