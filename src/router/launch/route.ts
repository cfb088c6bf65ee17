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
import type { Logger } from "../../core/logger.js";
import { PlatformError } from "../../platform/errors.js";
import type { PlatformClient } from "../../platform/types.js";
import type { ExamDirectory } from "../shared/exam-directory.js";
import { asyncHandler } from "../shared/guards.js";
import type { TokenPreparer } from "../prepare/preparer.js";
import { admit, type LaunchLog } from "./admission.js";
import { studentKey } from "../shared/student-key.js";
import type { LaunchAttempt, LaunchAttempts } from "./attempts.js";
import { sendFailure, sendWaitExceeded, sendWaitingPage, sendWaitRefused, type PageResult } from "./pages.js";
import type { LaunchSettings } from "./settings.js";
import type { ExamKind } from "../../store/types.js";
import { examPagePath, launchedId, launchPath } from "./exam-page.js";

export interface LaunchDeps {
  platform: PlatformClient;
  logger: Logger;
  directory: ExamDirectory;
  attempts: LaunchAttempts;
  preparer: TokenPreparer;
}

/** `kind`: which exams this route launches (`/launch/:examId` oral, `/launch/roleplay/:roleplayId` role-plays). */
export function launchRoute(settings: LaunchSettings, { platform, logger, directory, attempts, preparer }: LaunchDeps, kind: ExamKind = "oral") {
  const done: LaunchLog = (req, outcome, status, started, extra = {}) => {
    const entry = { event: "launch", outcome, status, examId: launchedId(req.params), kind, durationMs: Math.round(performance.now() - started), ...extra };
    if (status >= 500) logger.warn(entry, `launch ${outcome}`);
    else if (outcome === "waiting" || outcome === "client_gone") logger.debug(entry, `launch ${outcome}`);
    else logger.info(entry, `launch ${outcome}`);
  };

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
    `${settings.examHost}${examPagePath(kind, examId)}?${settings.ticketParam}=${encodeURIComponent(token)}`;

  /** Holds the request on the attempt, then answers: redirect, waiting page, or failure. */
  async function follow(req: Request, res: Response, attempt: LaunchAttempt, holdMs: number, started: number, meta: Record<string, unknown>): Promise<void> {
    const launchHref = launchPath(req.baseUrl, kind, attempt.examId);
    const result = await attempts.wait(attempt, holdMs, (gone) => {
      res.once("close", gone);
      return () => res.off("close", gone);
    });
    const closed = res.writableEnded || res.destroyed || res.socket === null || res.socket.destroyed;
    if (result === "client_gone" || closed) {
      // Not claimed: the token (if any) waits for this student's next request.
      return done(req, "client_gone", 499, started, meta);
    }
    if (result === "hold_expired") {
      const refresh = `${launchHref}?wait=${attempts.waitIdOf(attempt)}`;
      const page = sendWaitingPage(res, attempts.ahead(attempt), refresh, settings.waitingPageAfterMs);
      return done(req, page.outcome, page.status, started, meta);
    }
    attempts.claim(attempt);
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
    const admitted = await admit(settings, directory, done, req, res, started, kind);
    if (!admitted) return;
    const { examId, exam, student } = admitted;
    const user = student.orgInternalId;

    if (settings.examHost === undefined) {
      // The platform's own host signs students in itself: no token needed.
      redirect(res, `${platform.platformOrigin}${examPagePath(kind, examId)}`);
      return done(req, "redirected", 303, started, { user, classId: exam.classId });
    }

    const userKey = studentKey(student);
    const launchHref = launchPath(req.baseUrl, kind, examId);
    const waitId = req.query.wait;
    if (waitId !== undefined) {
      const attempt = attempts.byWait(waitId);
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

    const prepared = preparer.take(examId, exam.classId, student);
    if (prepared !== undefined) {
      redirect(res, examUrl(examId, prepared));
      return done(req, "redirected", 303, started, { user, classId: exam.classId, source: "prepared" });
    }

    // Taken before this launch's own call is queued: the calls ahead of it.
    const estimateMs = platform.estimateWaitMs(attempts.pendingCount);
    const { attempt, shared } = attempts.join(examId, userKey, (signal) =>
      // The whole wait is bounded by launchWaitMs, not by the client's (shorter) deadline.
      platform.students.issueSignInToken(student, exam, { priority: "launch", signal, deadlineMs: settings.launchWaitMs }));
    const hold = estimateMs > settings.waitingPageAfterMs ? 0 : settings.waitingPageAfterMs;
    return follow(req, res, attempt, hold, started, { user, classId: exam.classId, source: shared ? "shared" : "on_demand" });
  });
}
