/**
 * What a launch answers when it does not redirect: the waiting page of a storm, and the
 * pages for each way getting a token can fail. Each returns the outcome it logs.
 */
import type { Response } from "express";
import { sendPage } from "../shared/html.js";

export type LaunchOutcome =
  | "redirected" | "login_required" | "bad_exam_id" | "unknown_exam" | "student_incomplete"
  | "forbidden" | "class_full" | "platform_failed" | "platform_timeout" | "platform_busy"
  | "waiting" | "wait_exceeded" | "wait_refused" | "wait_unknown" | "client_gone" | "launch_limited"
  | "platform_unavailable" | "failure_backoff" | "not_a_navigation";

export interface PageResult {
  outcome: LaunchOutcome;
  status: number;
}

/**
 * "Preparing your exam — N students ahead of you". It refreshes itself (a `Refresh`
 * header and a meta refresh: no JavaScript needed) to `refreshHref`, which the router
 * holds open until the token is ready, so the redirect comes the moment it is. With no
 * hold (waitingPageAfterMs under a second) the page waits a second itself, so it never
 * loops tightly. It blames a queue only when there is one: with nobody ahead, the exam
 * service is merely slow to answer.
 */
export function sendWaitingPage(res: Response, ahead: number, refreshHref: string, holdMs: number): PageResult {
  const delay = holdMs >= 1_000 ? 0 : 1;
  const who = ahead === 0 ? "you are next" : `${ahead} student${ahead === 1 ? "" : "s"} ahead of you`;
  const why = ahead === 0 ? "The exam service is taking a moment to answer." : "Many students are starting at once.";
  sendPage(res, {
    status: 202,
    title: `Preparing your exam — ${who}`,
    message: `${why} This page refreshes itself and takes you to your exam as soon as it is ready; please keep it open.`,
    refresh: { seconds: delay, href: refreshHref },
    retryHref: refreshHref,
    retryText: "Refresh now",
    ahead,
  });
  return { outcome: "waiting", status: 202 };
}

/** The student waited `launchWaitMs` and the platform could not serve them in time (a queue, or a slow platform). */
export function sendWaitExceeded(res: Response, launchHref: string): PageResult {
  sendPage(res, {
    status: 503,
    kind: "wait_exceeded",
    title: "Your exam could not be prepared in time",
    message: "The exam service did not get your exam ready in time. Please try again in a moment.",
    retryHref: launchHref,
    retryAfter: 10,
  });
  return { outcome: "wait_exceeded", status: 503 };
}

/** A waiting page's link followed by another account: it carries nothing for them. */
export function sendWaitRefused(res: Response, launchHref: string): PageResult {
  sendPage(res, {
    status: 403,
    kind: "wrong_account",
    title: "This waiting page belongs to another account",
    message: "Open the exam link from your own account to start your exam.",
    retryHref: launchHref,
    retryText: "Start my exam",
  });
  return { outcome: "wait_refused", status: 403 };
}

/** The last resort: an unexpected error on the launch route (it was logged by the caller). */
export function sendLastResortPage(res: Response, retryHref: string, retryAfter?: number): void {
  const when = retryAfter === undefined ? "in a minute" : `in ${Math.ceil(retryAfter)} second${Math.ceil(retryAfter) === 1 ? "" : "s"}`;
  sendPage(res, { status: 500, title: "Something went wrong", message: `We could not start your exam. Please try again ${when}.`, retryHref, retryAfter });
}

/**
 * The student caused more sign-in calls than their fair share (`launchLimit`): say when
 * to try again (`Retry-After`; like every page here, `Cache-Control: no-store`).
 */
export function sendLaunchLimited(res: Response, retryAfterMs: number, launchHref: string): PageResult {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  sendPage(res, {
    status: 429,
    title: "Please wait a moment before opening the exam again",
    message: `This exam link was opened many times in a short while. Please try again in ${seconds} second${seconds === 1 ? "" : "s"}.`,
    retryHref: launchHref,
    retryAfter: seconds,
  });
  return { outcome: "launch_limited", status: 429 };
}
