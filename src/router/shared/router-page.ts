/**
 * The router's HTML pages as data: what an integrator's `renderPage` receives to show a
 * launch's 401, 403, 404, 409, 429, 5xx or waiting page inside their own layout. The
 * built-in page (`builtin-page.ts`) renders the same object.
 */
import type { Request, Response } from "express";

/**
 * What the page is about, for integrators who word or style each case themselves. New
 * kinds may be added in later versions: fall back on `status` for a kind you do not know.
 * - `login_required` 401: no signed-in user (and no `loginUrl` to send them to).
 * - `bad_request` 400: not an exam link.
 * - `profile_incomplete` 400: the account lacks a field the exam needs (named in `message`).
 * - `forbidden` 403: `canLaunch` said no.
 * - `wrong_account` 403: a waiting page's link opened by another account.
 * - `not_found` 404: unknown exam, or the platform no longer knows its class.
 * - `class_full` 409: the class has no free places.
 * - `rate_limited` 429: too many launches from this student or site.
 * - `waiting` 202: the self-refreshing "Preparing your exam" page of a storm.
 * - `internal_error` 500: an unexpected error (it was logged).
 * - `platform_failed` 502: the exam service failed this student's sign-in.
 * - `platform_busy` 503: the exam service is rate limiting this site.
 * - `platform_unavailable` 503: the exam service is failing for many students (the circuit
 *   breaker is open): nothing was asked of it; `retryAfter` says when to try again.
 * - `wait_exceeded` 503, `platform_timeout` 504.
 *
 * After a failed sign-in the student waits a short, growing backoff; a launch during it
 * shows the same kind of page again (`class_full`, `not_found`, `platform_failed`,
 * `platform_timeout`, `internal_error`) with `retryAfter` set.
 */
export type RouterPageKind =
  | "login_required" | "bad_request" | "profile_incomplete" | "forbidden" | "wrong_account" | "not_found"
  | "class_full" | "rate_limited" | "waiting" | "internal_error" | "platform_failed" | "platform_busy"
  | "platform_unavailable" | "wait_exceeded" | "platform_timeout";

/** A link the page offers. `href` is a URL-encoded path or URL, safe to put in an attribute once HTML-escaped. */
export interface RouterPageLink {
  href: string;
  /** Plain text (escape it). */
  text: string;
  /** `"retry"`: the same launch again; `"home"`: the way back (`homeUrl`), on every page. */
  rel?: "retry" | "home";
}

export interface RouterPage {
  /** The HTTP status; already set on the response when `renderPage` is called. */
  status: number;
  kind: RouterPageKind;
  /** Plain text (escape it): the page's heading and `<title>`. */
  title: string;
  /** Plain text (escape it): one paragraph. */
  message: string;
  /** In order: the retry link first when there is one, the way back (`rel: "home"`) last. */
  links: RouterPageLink[];
  /** Seconds before trying again is worth it; already sent as `Retry-After`. */
  retryAfter?: number;
  /**
   * The waiting page reloads itself: go to `href` after `seconds`. Already sent as a
   * `Refresh` header, which browsers obey, so a layout need not add
   * `<meta http-equiv="refresh">` (it may, with the same values).
   */
  refresh?: { seconds: number; href: string };
  /**
   * The waiting page (`kind: "waiting"`): how many students' sign-in calls go before this
   * one's on the instance serving the page; 0 when the student is next. A layout words the
   * queue from this rather than from `title`.
   */
  ahead?: number;
}

/**
 * Renders a router page inside the integrator's layout. The router has already set the
 * status and the headers that keep the page safe (`Cache-Control: no-store`,
 * `Referrer-Policy: same-origin` (forms of the layout posting to this site keep their
 * `Origin`; other sites learn nothing), `X-Content-Type-Options: nosniff`, `Retry-After`,
 * `Refresh`, `Content-Type: text/html`) but not its own Content-Security-Policy: the
 * layout sets its own. It must answer (`res.send`, `res.render`, `res.end`), at once or
 * through the promise it returns, within 5 seconds; if it throws, rejects or does not
 * answer, the built-in page is sent instead and the failure is logged.
 */
export type RenderPage = (req: Request, res: Response, page: RouterPage) => void | Promise<void>;
