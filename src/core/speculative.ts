/**
 * Requests for a launch URL that are not a student opening it: `HEAD` (link checkers,
 * chat previews, mail scanners) and prefetches (`Sec-Purpose: prefetch`, with or
 * without `;prerender`; the older `Purpose: prefetch`, which Chrome still sends for
 * `<link rel=prefetch>`; Firefox's old `X-Moz: prefetch`; Safari's `X-Purpose: preview`).
 * They are answered before anything else: no platform call, no prepared token taken, no
 * use of the student's share, no store read, and always `Cache-Control: no-store`.
 *
 * What they answer, and why:
 * - A prefetch gets 503 (a short text body). A browser uses a prefetched navigation
 *   only when its status is 2xx: the speculation-rules prefetch accepts "ok statuses"
 *   alone (Chromium records other answers as `PrefetchFailedNon2XX`) and stores no error
 *   status for the navigation, so the click makes the real request, which launches. A
 *   2xx such as 204 would be used in its place, and the click would do nothing. A
 *   `<link rel=prefetch>` answer goes to the HTTP cache instead, which `no-store` keeps
 *   it out of (a web-platform test checks that a 503 answered to a prefetch is not
 *   served to the navigation that follows). No `Retry-After`: after a 503 with one,
 *   Chromium holds back prefetches to the whole origin for that long
 *   (`PrefetchIneligibleRetryAfter`), which would slow the host app's other pages.
 * - `HEAD` gets 204: a link checker sees a live link; a browser never navigates with a
 *   HEAD answer, and `no-store` keeps it from freshening anything cached.
 *
 * Here, below the router and the LTI routes, because both answer them alike: the
 * router's `GET /launch/:examId` and the LTI exam link (`GET /lti/open/…`).
 */
import type { Request, Response } from "express";

/** What was answered, as the launch logs it. */
export interface SpeculativeAnswer {
  outcome: "not_a_navigation";
  status: 204 | 503;
}

const SEC_PURPOSE_PREFETCH = /(?:^|,)\s*prefetch\s*(?:;|,|$)/i;
const LEGACY_PURPOSE = /^\s*(?:prefetch|preview)\s*$/i;

/** Whether this launch request is a HEAD or a prefetch (see the file comment). */
export function isSpeculative(req: Request): boolean {
  if (req.method === "HEAD") return true;
  const secPurpose = req.headers["sec-purpose"];
  if (typeof secPurpose === "string" && SEC_PURPOSE_PREFETCH.test(secPurpose)) return true;
  return [req.headers.purpose, req.headers["x-purpose"], req.headers["x-moz"]].some((v) => typeof v === "string" && LEGACY_PURPOSE.test(v));
}

/** Answers a HEAD or prefetch of a launch URL without doing anything. */
export function answerSpeculative(req: Request, res: Response): SpeculativeAnswer {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("X-Content-Type-Options", "nosniff");
  if (req.method === "HEAD") {
    res.statusCode = 204;
    res.end();
    return { outcome: "not_a_navigation", status: 204 };
  }
  const body = "Not prefetched: open the exam link to start your exam.\n";
  res.statusCode = 503;
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.setHeader("Content-Length", String(Buffer.byteLength(body)));
  res.end(body);
  return { outcome: "not_a_navigation", status: 503 };
}
