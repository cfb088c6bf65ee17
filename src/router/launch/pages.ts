/**
 * What a launch answers when it does not redirect: the waiting page of a storm, and the
 * pages for each way getting a token can fail. Each returns the outcome it logs.
 */
import type { Response } from "express";
import type { PlatformError } from "../../platform/errors.js";
import { failureOf } from "../shared/platform-failures.js";
import { sendPage } from "../shared/html.js";

export type LaunchOutcome =
  | "redirected" | "login_required" | "bad_exam_id" | "unknown_exam" | "student_incomplete"
  | "forbidden" | "class_full" | "platform_failed" | "platform_timeout" | "platform_busy"
  | "waiting" | "wait_exceeded" | "wait_refused" | "wait_unknown" | "client_gone";

export interface PageResult {
  outcome: LaunchOutcome;
  status: number;
}

/**
 * "Preparing your exam — N students ahead of you". It refreshes itself (a `Refresh`
 * header and a meta refresh: no JavaScript needed) to `refreshHref`, which the router
 * holds open until the token is ready, so the redirect comes the moment it is. With no hold (waitingPageAfterMs
 * under a second) the page waits a second itself, so it never loops tightly.
 */
export function sendWaitingPage(res: Response, ahead: number, refreshHref: string, holdMs: number): PageResult {
  const delay = holdMs >= 1_000 ? 0 : 1;
  const who = ahead === 0 ? "you are next" : `${ahead} student${ahead === 1 ? "" : "s"} ahead of you`;
  sendPage(res, {
    status: 202,
    title: `Preparing your exam — ${who}`,
    message: "Many students are starting at once. This page refreshes itself and takes you to your exam as soon as it is ready; please keep it open.",
    refresh: { seconds: delay, href: refreshHref },
    retryHref: refreshHref,
    retryText: "Refresh now",
  });
  return { outcome: "waiting", status: 202 };
}

/** The student waited `launchWaitMs` and the platform could not serve them in time. */
export function sendWaitExceeded(res: Response, launchHref: string): PageResult {
  sendPage(res, {
    status: 503,
    kind: "wait_exceeded",
    title: "Your exam could not be prepared in time",
    message: "Too many students are starting at once. Please try again in a moment.",
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

/**
 * A platform failure, as a page with a retry link where trying again can help. The status
 * comes from the same mapping as the instructor API's problem+json (`failureOf`); a
 * student can do nothing about a refused request (400, 403, a passed-through 4xx), so
 * those show the generic 502 page.
 */
export function sendFailure(res: Response, error: PlatformError, retryHref: string): PageResult {
  const { status } = failureOf(error);
  if (status === 409) {
    sendPage(res, { status, title: "This exam is full", message: "The class has no free places left. Ask your instructor." });
    return { outcome: "class_full", status };
  }
  if (status === 404) {
    sendPage(res, { status, title: "Exam not found", message: "The platform no longer knows this exam's class. Ask your instructor for a new link." });
    return { outcome: "unknown_exam", status };
  }
  if (status === 504) {
    sendPage(res, { status, title: "The exam service is slow to answer", message: "Please wait a moment and try again.", retryHref });
    return { outcome: "platform_timeout", status };
  }
  if (status === 503) {
    const retryAfter = error.retryAfter ?? 10;
    sendPage(res, { status, title: "The exam service is busy", message: `Many students are starting at once. Please try again in ${Math.ceil(retryAfter)} seconds.`, retryHref, retryAfter });
    return { outcome: "platform_busy", status };
  }
  sendPage(res, { status: 502, title: "The exam service is not available", message: "We could not reach the exam service. Please try again in a minute.", retryHref });
  return { outcome: "platform_failed", status: 502 };
}

/** The last resort: an unexpected error on the launch route (it was logged by the caller). */
export function sendLastResortPage(res: Response, retryHref: string): void {
  sendPage(res, { status: 500, title: "Something went wrong", message: "We could not start your exam. Please try again in a minute.", retryHref });
}
