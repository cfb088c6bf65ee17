/**
 * `GET /launch/:examId`: the student's way into an exam. Finds the logged-in student,
 * checks they may launch, gets a one-time sign-in token (custom domain only) and
 * redirects (303) to the exam page. A browser route: it answers with a redirect or a
 * short HTML page, never JSON, and never holds a request for more than
 * `waitingPageAfterMs`.
 *
 * A HEAD or a prefetch of the URL is answered first, doing nothing (speculative.ts).
 *
 * Where the token comes from, in order:
 * 1. a token pre-warmed for this student and exam, from the fleet's prepared tokens
 *    (no platform call; taken once fleet-wide);
 * 2. past the student's fair share (`launchLimit`): none. During the backoff after a
 *    failed call, that failure's page again (say, "this exam is full"); otherwise a 429
 *    page; both say when to try again (a reload loop cannot drain the key);
 * 3. the student's attempt already in flight (a double click, a second tab), or a new
 *    one: one sign-in call at launch priority, bounded by `launchWaitMs`, unless the
 *    sign-in endpoint's circuit breaker is open (on-demand.ts).
 * When the token is not there within `waitingPageAfterMs` (or the rate budget says it
 * will not be), the student gets a waiting page that refreshes itself to
 * `?wait=<id>`; that id is honoured only for the student it was made for, on any
 * instance of a fleet.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { logsAt, type Logger, type LogLevel } from "../../core/logger.js";
import type { LaunchLimiter } from "../../fleet/launch-limiter.js";
import type { PlatformBreaker } from "../../fleet/platform-breaker.js";
import type { PlatformClient } from "../../platform/types.js";
import type { ExamDirectory } from "../shared/exam-directory.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { asyncHandler } from "../shared/guards.js";
import type { TokenPreparer } from "../prepare/preparer.js";
import { admit, type LaunchLog, type LinkedLaunch } from "./admission.js";
import { studentKey } from "../shared/student-key.js";
import type { LaunchAttempts } from "./attempts.js";
import { onDemandLaunches, type OnDemandLaunch } from "./on-demand.js";
import { sendRememberedFailure } from "./failures.js";
import { sendLaunchLimited } from "./pages.js";
import { answerSpeculative, isSpeculative } from "./speculative.js";
import type { LaunchSettings } from "./settings.js";
import type { ExamKind, LaunchVia } from "../../store/types.js";
import { examPagePath, launchedId, launchPath } from "../shared/exam-page.js";
import type { LaunchRecorder } from "../records/recorder.js";
import { launchRecordOf, servedByOf } from "../records/launch-record.js";
import type { CountLaunch } from "../metrics/scope-metrics.js";
import { annotateLaunch } from "./launch-span.js";
import type { StudentIdentity } from "../../platform/schemas.js";

export interface LaunchDeps {
  platform: PlatformClient;
  logger: Logger;
  directory: ExamDirectory;
  /** The organization whose exams a launch looks up. */
  organizationIdOf: OrganizationIdOf;
  attempts: LaunchAttempts;
  preparer: TokenPreparer;
  /** The fleet's per-student launch limit. */
  launchLimiter: LaunchLimiter;
  /** The sign-in endpoint's circuit breaker. */
  breaker: PlatformBreaker;
  /** Where each outcome of an identified student is recorded; undefined: `launchRecord: false`. */
  recorder?: LaunchRecorder | undefined;
  /** This instance's name, recorded with each launch (fleet mode only). */
  instance?: string | undefined;
  /** How students arrive at this route: the app's link (default) or an LMS's LTI launch. */
  via?: LaunchVia;
  /** Counts each answer in the Prometheus metrics; undefined: no `metrics` option. */
  countLaunch?: CountLaunch | undefined;
}

/** `kind`: which exams this route launches (`/launch/:examId` oral, `/launch/roleplay/:roleplayId` role-plays). */
export function launchRoute(settings: LaunchSettings, deps: LaunchDeps, kind: ExamKind = "oral"): RequestHandler {
  const handle = launchHandler(settings, deps, kind);
  return asyncHandler((req, res) => handle(req, res, undefined));
}

/** The launch of an LTI exam link (lti/open-link.ts's `OpenExam`): not an Express handler, the link's route calls it. */
export type LinkedLaunchRoute = (req: Request, res: Response, next: NextFunction, linked: LinkedLaunch) => void;

/**
 * An LTI exam link's launch: the same launch, with the student of the verified LMS launch
 * handed in as an argument by the link's route (lti/open-link.ts) and recorded
 * `via: "lti"`. Every request of the link (its waiting page's refreshes too) passes
 * through that route, which reads the student back from the fleet's store.
 */
export function ltiLaunchRoute(settings: LaunchSettings, deps: LaunchDeps, kind: ExamKind = "oral"): LinkedLaunchRoute {
  const handle = launchHandler(settings, { ...deps, via: "lti" }, kind);
  return (req, res, next, linked) => void handle(req, res, linked).catch(next);
}

function launchHandler(settings: LaunchSettings, deps: LaunchDeps, kind: ExamKind) {
  const { platform, logger, directory, organizationIdOf, attempts, preparer, launchLimiter, breaker } = deps;
  const via = deps.via ?? "link";
  const { countLaunch } = deps;
  const record = deps.recorder === undefined ? undefined : launchRecordOf(deps.recorder, organizationIdOf, kind, via, deps.instance);
  const done: LaunchLog = (req, outcome, status, started, { student, ...extra } = {}) => {
    // The student (with their e-mail) goes to the launch record, never to the log line, a metric or a span.
    if (record && student) record(req, outcome, status, student as StudentIdentity, extra.source);
    const ms = performance.now() - started;
    const servedBy = servedByOf(outcome, extra.source);
    countLaunch?.(kind, via, outcome, servedBy, ms / 1000);
    annotateLaunch(req, outcome, servedBy, kind, via);
    // A user the default mapper cannot make a student of is the integrator's to fix (req.user lacks fields): warn.
    const level: LogLevel = outcome === "waiting" || outcome === "client_gone" || outcome === "not_a_navigation" ? "debug"
      : status >= 500 || outcome === "student_incomplete" ? "warn" : "info";
    // Built only when written: a storm's every request would otherwise make a line nobody reads.
    if (!logsAt(logger, level)) return;
    logger[level]({ event: "launch", outcome, status, examId: launchedId(req.params), kind, durationMs: Math.round(ms), ...extra }, `launch ${outcome}`);
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

  const onDemand = onDemandLaunches(settings, { attempts, breaker, launchLimiter, logger, redirect, done });

  /**
   * Past the student's fair share of sign-in calls, or in the backoff after a failed one:
   * answers the page (the last failure's again, or the 429 page) and returns true.
   */
  async function overLimit(launch: OnDemandLaunch): Promise<boolean> {
    const limit = await launchLimiter.check(launch.examId, launch.userKey);
    if (limit.allowed) return false;
    const { req, res, started, meta, launchHref } = launch;
    if (limit.lastFailure !== undefined) {
      const page = sendRememberedFailure(res, limit.lastFailure, limit.retryAfterMs, launchHref);
      done(req, "failure_backoff", page.status, started, { ...meta, page: page.outcome, retryAfterMs: limit.retryAfterMs });
      return true;
    }
    const page = sendLaunchLimited(res, limit.retryAfterMs, launchHref);
    done(req, page.outcome, page.status, started, { ...meta, retryAfterMs: limit.retryAfterMs });
    return true;
  }

  return async (req: Request, res: Response, linked: LinkedLaunch | undefined): Promise<void> => {
    const started = performance.now();
    if (isSpeculative(req)) {
      const answer = answerSpeculative(req, res);
      return done(req, answer.outcome, answer.status, started, { method: req.method });
    }
    const admitted = await admit(settings, directory, organizationIdOf, done, req, res, started, kind, linked);
    if (!admitted) return;
    const { examId, exam, student } = admitted;
    const user = student.orgInternalId;

    if (settings.examHost === undefined) {
      // The platform's own host signs students in itself: no token needed.
      redirect(res, `${platform.platformOrigin}${examPagePath(kind, examId)}`);
      return done(req, "redirected", 303, started, { user, classId: exam.classId, student, source: "platform_host" });
    }

    const launch: OnDemandLaunch = {
      req, res, examId, userKey: studentKey(student), started,
      // A link's waiting page refreshes to the link itself, which hands the student in again.
      launchHref: linked ? `${req.baseUrl}${req.path}` : launchPath(req.baseUrl, kind, examId),
      meta: { user, classId: exam.classId, student },
      target: (token) => examUrl(examId, token),
      // The whole wait is bounded by launchWaitMs, not by the client's (shorter) deadline.
      issue: (signal) => platform.students.issueSignInToken(student, exam, { priority: "launch", signal, deadlineMs: settings.launchWaitMs }),
    };
    if (req.query.wait !== undefined) return onDemand.resume(launch, req.query.wait);

    const prepared = await preparer.take(examId, exam.classId, student);
    if (prepared !== undefined) {
      redirect(res, launch.target(prepared));
      return done(req, "redirected", 303, started, { ...launch.meta, source: "prepared" });
    }
    if (await overLimit(launch)) return;
    // Taken before this launch's own call is queued: the calls ahead of it.
    return onDemand.join(launch, platform.estimateWaitMs(attempts.pendingCount));
  };
}
