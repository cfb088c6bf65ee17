/**
 * The on-demand half of a launch: the student's attempt (joined, started, or followed
 * from a waiting page's refresh on any instance), held for a moment, then answered with
 * the redirect, the waiting page or a failure page. `launch/route.ts` decides when to
 * come here; this file knows nothing of admission, prepared tokens or the launch limit.
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import type { LaunchLimiter } from "../../fleet/launch-limiter.js";
import { CircuitOpenError, type PlatformBreaker } from "../../fleet/platform-breaker.js";
import { PlatformError } from "../../platform/errors.js";
import { LaunchAttempts, type AttemptCall, type AttemptHandle } from "./attempts.js";
import { ABANDONED_STATUS, failedOutcome, failureMemo, isCounted, sendFailed, withRetryAfter } from "./failures.js";
import { sendWaitingPage, sendWaitRefused, type LaunchOutcome } from "./pages.js";
import type { LaunchSettings } from "./settings.js";

/** One launch request's facts, as the route found them. */
export interface OnDemandLaunch {
  req: Request;
  res: Response;
  examId: string;
  userKey: string;
  /** The launch URL without `?wait` (what a restart or a retry link opens). */
  launchHref: string;
  started: number;
  meta: Record<string, unknown>;
  /** Where the token takes the student. */
  target: (token: string) => string;
  /** The sign-in call itself, run by whichever instance owns the attempt. */
  issue: (signal: AbortSignal) => Promise<string>;
}

export interface OnDemandDeps {
  attempts: LaunchAttempts;
  /** The sign-in endpoint's circuit breaker: asked before each call. */
  breaker: PlatformBreaker;
  /** Told of each failed call the student's share pays for (it starts their backoff). */
  launchLimiter: LaunchLimiter;
  logger: Logger;
  redirect: (res: Response, target: string) => void;
  done: (req: Request, outcome: LaunchOutcome, status: number, started: number, extra?: Record<string, unknown>) => void;
}

export function onDemandLaunches(settings: LaunchSettings, { attempts, breaker, launchLimiter, logger, redirect, done }: OnDemandDeps) {
  /**
   * The attempt's call as an outcome: a failure is stored as the page to show, on
   * whichever instance shows it. A failure the student's share pays for is recorded
   * before the outcome is stored, so the student's next reload (on any instance) finds
   * the backoff it started, and the page says how long it is.
   */
  const callOf = (launch: OnDemandLaunch): AttemptCall => (signal) => {
    const sentAt = Date.now();
    return breaker.run(() => launch.issue(signal), signal).then(
      (token) => ({ kind: "token" as const, token }),
      async (error: unknown) => {
        const e = error instanceof PlatformError ? error : undefined;
        if (error instanceof CircuitOpenError) {
          logger.debug({ event: "launch_call_refused", examId: launch.examId, breaker: error.state, retryAfterMs: error.retryAfterMs }, "a sign-in call was not sent: the circuit breaker is open");
        } else if (!signal.aborted) {
          logger.warn({ event: "launch_call_failed", examId: launch.examId, kind: e?.kind, code: e?.code, platformStatus: e?.status, requestId: e?.requestId, error: e ? undefined : (error as Error)?.message }, "a sign-in call failed");
        }
        const outcome = failedOutcome(error, Date.now() - sentAt, settings.launchWaitMs, signal);
        if (!isCounted(outcome)) return outcome;
        const limit = await launchLimiter.recordFailure(launch.examId, launch.userKey, failureMemo(outcome)).catch(() => undefined);
        return limit ? withRetryAfter(outcome, limit.retryAfterMs) : outcome;
      },
    );
  };

  /** Back to the launch URL: the attempt is gone, answered, or was abandoned. */
  function startOver(launch: OnDemandLaunch): void {
    launch.res.setHeader("Cache-Control", "no-store");
    // The URL it leaves held a wait id.
    launch.res.setHeader("Referrer-Policy", "no-referrer");
    launch.res.redirect(303, launch.launchHref);
    done(launch.req, "wait_unknown", 303, launch.started, launch.meta);
  }

  /**
   * A wait id the store does not know: while the fleet may hold that attempt out of this
   * instance's sight (Redis away or just back; why, in unseen-waits.ts), the waiting page
   * again, refreshing to the same wait id after a second, with no call and nothing counted;
   * otherwise back to the launch URL.
   */
  function unknownWait(launch: OnDemandLaunch, handle: AttemptHandle): void {
    if (!attempts.keepsLooking(handle)) return startOver(launch);
    const page = sendWaitingPage(launch.res, 0, `${launch.launchHref}?wait=${handle.waitId}`, 0);
    done(launch.req, page.outcome, page.status, launch.started, { ...launch.meta, unseen: true });
  }

  /** Holds the request on the attempt, then answers: redirect, waiting page, or failure. */
  async function follow(launch: OnDemandLaunch, handle: AttemptHandle, holdMs: number): Promise<void> {
    const { req, res, started, meta } = launch;
    const result = await attempts.wait(handle, holdMs, (gone) => {
      res.once("close", gone);
      return () => res.off("close", gone);
    });
    const closed = res.writableEnded || res.destroyed || res.socket === null || res.socket.destroyed;
    if (result === "client_gone" || closed) {
      // Not claimed: the token (if any) waits for this student's next request.
      return done(req, "client_gone", 499, started, meta);
    }
    if (result === "unknown") return unknownWait(launch, handle);
    if (result === "lapsed") {
      // The instance running the call died: this one takes it over (or someone else did).
      await attempts.takeOver(handle, callOf(launch));
      return follow(launch, handle, holdMs);
    }
    if (result === "hold_expired") {
      const refresh = `${launch.launchHref}?wait=${handle.waitId}`;
      const page = sendWaitingPage(res, attempts.ahead(handle), refresh, settings.waitingPageAfterMs);
      return done(req, page.outcome, page.status, started, meta);
    }
    const outcome = await attempts.claim(handle);
    if (outcome === undefined || (outcome.kind === "failed" && outcome.status === ABANDONED_STATUS)) return startOver(launch);
    if (outcome.kind === "token") {
      redirect(res, launch.target(outcome.token));
      const since = attempts.startedAt(handle);
      return done(req, "redirected", 303, started, since === undefined ? meta : { ...meta, waitedMs: Date.now() - since });
    }
    const page = sendFailed(res, outcome, launch.launchHref);
    done(req, page.outcome, page.status, started, meta);
  }

  return {
    /** A launch with no wait id: joins the student's attempt or starts it. */
    async join(launch: OnDemandLaunch, estimateMs: number): Promise<void> {
      const { handle, shared } = await attempts.join(launch.examId, launch.userKey, callOf(launch));
      const hold = estimateMs > settings.waitingPageAfterMs ? 0 : settings.waitingPageAfterMs;
      return follow({ ...launch, meta: { ...launch.meta, source: shared ? "shared" : "on_demand" } }, handle, hold);
    },

    /** A waiting page's refresh (`?wait=`), on whichever instance it lands. */
    async resume(launch: OnDemandLaunch, waitId: unknown): Promise<void> {
      const meta = { ...launch.meta, source: "wait" };
      if (!LaunchAttempts.isWaitId(waitId)) return startOver({ ...launch, meta });
      if (attempts.belongsElsewhere(waitId, launch.examId, launch.userKey)) {
        const page = sendWaitRefused(launch.res, launch.launchHref);
        return done(launch.req, page.outcome, page.status, launch.started, meta);
      }
      const handle = { waitId, examId: launch.examId, userKey: launch.userKey };
      const view = await attempts.view(handle);
      // Already answered (a reload after the redirect): start over.
      if (view.state === "done" && view.claimed) return startOver({ ...launch, meta });
      // Expired, another student's, or held where this instance cannot see it.
      if (view.state === "unknown") return unknownWait({ ...launch, meta }, handle);
      return follow({ ...launch, meta }, handle, settings.waitingPageAfterMs);
    },
  };
}
