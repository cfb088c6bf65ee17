/**
 * A failed sign-in call as an attempt outcome, and back as a page. The outcome lives in
 * the fleet's attempt store, where the request that shows it may run on another
 * instance: so it carries the page to show (status, which page, `Retry-After`), decided
 * once by the instance that made the call, and never the error object itself.
 *
 * A failure the student's share pays for (`counted`: the platform was asked and failed
 * or refused) is also remembered by the launch limiter (`failureMemo`), which shows its
 * page again during the backoff that follows (`sendRememberedFailure`), with no call.
 */
import type { Response } from "express";
import { PlatformError } from "../../platform/errors.js";
import type { AttemptOutcome } from "../../fleet/launch-attempts.js";
import { CircuitOpenError } from "../../fleet/platform-breaker.js";
import { failureOf } from "../shared/platform-failures.js";
import { sendLastResortPage, sendWaitExceeded, type LaunchOutcome, type PageResult } from "./pages.js";
import { sendPage } from "../shared/html.js";

/** Status of the outcome of a call aborted because nobody waited for it any more. */
export const ABANDONED_STATUS = 499;

export type FailedOutcome = Extract<AttemptOutcome, { kind: "failed" }>;

interface FailureDetail {
  page: LaunchOutcome;
  /** Seconds; sent as `Retry-After` and said in the page. */
  retryAfter?: number;
  /** The platform was asked on the student's behalf and failed: the student's share pays. */
  counted?: boolean;
}

const encode = (status: number, detail: FailureDetail): FailedOutcome => ({ kind: "failed", status, detail: JSON.stringify(detail) });

/** What the owner stores when its call failed. */
export function failedOutcome(error: unknown, elapsedMs: number, launchWaitMs: number, signal: AbortSignal): FailedOutcome {
  if (signal.aborted) return encode(ABANDONED_STATUS, { page: "client_gone" });
  // Refused by the circuit breaker: nothing was sent, so nothing is counted.
  if (error instanceof CircuitOpenError) return encode(503, { page: "platform_unavailable", retryAfter: Math.ceil(error.retryAfterMs / 1000) });
  // Our own error: the call may have been made, so it counts like the platform's.
  if (!(error instanceof PlatformError)) return encode(500, { page: "platform_failed", counted: true });
  // The student waited launchWaitMs, mostly in the rate budget's queue: not their doing.
  if (error.kind === "timeout" && elapsedMs >= launchWaitMs - 100) return encode(503, { page: "wait_exceeded" });
  const { status } = failureOf(error);
  if (status === 409) return encode(409, { page: "class_full", counted: true });
  if (status === 404) return encode(404, { page: "unknown_exam", counted: true });
  if (status === 504) return encode(504, { page: "platform_timeout", counted: true });
  // A rate-limited platform is the budget's to pace, not the student's to pay for.
  if (status === 503) return encode(503, { page: "platform_busy", retryAfter: error.retryAfter ?? 10 });
  return encode(502, { page: "platform_failed", counted: true });
}

function decode(outcome: FailedOutcome): FailureDetail {
  try {
    return JSON.parse(outcome.detail) as FailureDetail;
  } catch {
    return { page: "platform_failed" };
  }
}

/** Whether the student's share pays for this failure (see the file comment). */
export function isCounted(outcome: FailedOutcome): boolean {
  return decode(outcome).counted === true;
}

/** The same outcome, saying when to try again (the backoff the limiter started). */
export function withRetryAfter(outcome: FailedOutcome, retryAfterMs: number): FailedOutcome {
  if (retryAfterMs <= 0) return outcome;
  return encode(outcome.status, { ...decode(outcome), retryAfter: Math.ceil(retryAfterMs / 1000) });
}

/** What the launch limiter keeps of a counted failure, to show its page again. */
export function failureMemo(outcome: FailedOutcome): string {
  const { page } = decode(outcome);
  return JSON.stringify({ status: outcome.status, page });
}

/** The page of a remembered failure, shown again with no call while its backoff runs. */
export function sendRememberedFailure(res: Response, memo: string, retryAfterMs: number, retryHref: string): PageResult {
  let remembered: { status?: unknown; page?: unknown } = {};
  try {
    remembered = JSON.parse(memo) as typeof remembered;
  } catch { /* an unreadable memo: the generic failure page below */ }
  const status = typeof remembered.status === "number" ? remembered.status : 502;
  const page = typeof remembered.page === "string" ? remembered.page as LaunchOutcome : "platform_failed";
  return sendFailed(res, encode(status, { page, retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) }), retryHref);
}

const inSeconds = (seconds: number): string => `${seconds} second${seconds === 1 ? "" : "s"}`;

/**
 * The page for a failed call. A student can do nothing about a refused request (400,
 * 403, a passed-through 4xx): those show the generic 502 page. With `retryAfter` the page
 * says when trying again is worth it.
 */
export function sendFailed(res: Response, outcome: FailedOutcome, retryHref: string): PageResult {
  const { page, retryAfter } = decode(outcome);
  const again = retryAfter === undefined ? "" : ` You can try again in ${inSeconds(Math.ceil(retryAfter))}.`;
  switch (page) {
    case "wait_exceeded":
      return sendWaitExceeded(res, retryHref);
    case "class_full":
      sendPage(res, {
        status: 409, title: "This exam is full", retryAfter, retryHref: retryAfter === undefined ? undefined : retryHref,
        message: `This exam is full: the class has no free places. This is not a problem with the exam service; ask your instructor.${again}`,
      });
      return { outcome: page, status: 409 };
    case "unknown_exam":
      sendPage(res, { status: 404, title: "Exam not found", message: `The platform no longer knows this exam's class. Ask your instructor for a new link.${again}`, retryAfter });
      return { outcome: page, status: 404 };
    case "platform_timeout":
      sendPage(res, { status: 504, title: "The exam service is slow to answer", message: `The exam service did not answer in time.${again || " Please wait a moment and try again."}`, retryHref, retryAfter });
      return { outcome: page, status: 504 };
    case "platform_busy": {
      const after = retryAfter ?? 10;
      sendPage(res, { status: 503, title: "The exam service is busy", message: `Many students are starting at once. Please try again in ${inSeconds(Math.ceil(after))}.`, retryHref, retryAfter: after });
      return { outcome: page, status: 503 };
    }
    case "platform_unavailable": {
      const after = retryAfter ?? 15;
      sendPage(res, {
        status: 503, kind: "platform_unavailable", title: "The exam service is not answering", retryHref, retryAfter: after,
        message: `The exam service is failing for many students right now, so we are giving it a moment before asking again. This is not a problem with your account. Please try again in ${inSeconds(Math.ceil(after))}.`,
      });
      return { outcome: page, status: 503 };
    }
    default:
      if (outcome.status === 500) {
        sendLastResortPage(res, retryHref, retryAfter);
        return { outcome: "platform_failed", status: 500 };
      }
      sendPage(res, {
        status: 502, title: "The exam service is failing", retryHref, retryAfter,
        message: `The exam service failed to prepare your exam. This is not a problem with your account.${again || " Please try again in a minute."}`,
      });
      return { outcome: "platform_failed", status: 502 };
  }
}
