/**
 * A failed sign-in call as an attempt outcome, and back as a page. The outcome lives in
 * the fleet's attempt store, where the request that shows it may run on another
 * instance: so it carries the page to show (status, which page, `Retry-After`), decided
 * once by the instance that made the call, and never the error object itself.
 */
import type { Response } from "express";
import { PlatformError } from "../../platform/errors.js";
import type { AttemptOutcome } from "../../fleet/launch-attempts.js";
import { failureOf } from "../shared/platform-failures.js";
import { sendLastResortPage, sendWaitExceeded, type LaunchOutcome, type PageResult } from "./pages.js";
import { sendPage } from "../shared/html.js";

/** Status of the outcome of a call aborted because nobody waited for it any more. */
export const ABANDONED_STATUS = 499;

type Failed = Extract<AttemptOutcome, { kind: "failed" }>;

interface FailureDetail {
  page: LaunchOutcome;
  retryAfter?: number;
}

/** What the owner stores when its call failed. */
export function failedOutcome(error: unknown, elapsedMs: number, launchWaitMs: number, signal: AbortSignal): Failed {
  const encode = (status: number, detail: FailureDetail): Failed => ({ kind: "failed", status, detail: JSON.stringify(detail) });
  if (signal.aborted) return encode(ABANDONED_STATUS, { page: "client_gone" });
  if (!(error instanceof PlatformError)) return encode(500, { page: "platform_failed" });
  if (error.kind === "timeout" && elapsedMs >= launchWaitMs - 100) return encode(503, { page: "wait_exceeded" });
  const { status } = failureOf(error);
  if (status === 409) return encode(409, { page: "class_full" });
  if (status === 404) return encode(404, { page: "unknown_exam" });
  if (status === 504) return encode(504, { page: "platform_timeout" });
  if (status === 503) return encode(503, { page: "platform_busy", retryAfter: error.retryAfter ?? 10 });
  return encode(502, { page: "platform_failed" });
}

function decode(outcome: Failed): FailureDetail {
  try {
    return JSON.parse(outcome.detail) as FailureDetail;
  } catch {
    return { page: "platform_failed" };
  }
}

/**
 * The page for a failed call. A student can do nothing about a refused request (400,
 * 403, a passed-through 4xx): those show the generic 502 page.
 */
export function sendFailed(res: Response, outcome: Failed, retryHref: string): PageResult {
  const { page, retryAfter } = decode(outcome);
  switch (page) {
    case "wait_exceeded":
      return sendWaitExceeded(res, retryHref);
    case "class_full":
      sendPage(res, { status: 409, title: "This exam is full", message: "The class has no free places left. Ask your instructor." });
      return { outcome: page, status: 409 };
    case "unknown_exam":
      sendPage(res, { status: 404, title: "Exam not found", message: "The platform no longer knows this exam's class. Ask your instructor for a new link." });
      return { outcome: page, status: 404 };
    case "platform_timeout":
      sendPage(res, { status: 504, title: "The exam service is slow to answer", message: "Please wait a moment and try again.", retryHref });
      return { outcome: page, status: 504 };
    case "platform_busy": {
      const after = retryAfter ?? 10;
      sendPage(res, { status: 503, title: "The exam service is busy", message: `Many students are starting at once. Please try again in ${Math.ceil(after)} seconds.`, retryHref, retryAfter: after });
      return { outcome: page, status: 503 };
    }
    default:
      if (outcome.status === 500) {
        sendLastResortPage(res, retryHref);
        return { outcome: "platform_failed", status: 500 };
      }
      sendPage(res, { status: 502, title: "The exam service is not available", message: "We could not reach the exam service. Please try again in a minute.", retryHref });
      return { outcome: "platform_failed", status: 502 };
  }
}
