/**
 * Every answer a route can give, as data: each status with what it carries and the
 * headers it sends. Derived from what a route is (`routes.ts`), never listed per route:
 * a guarded instructor route can answer 401 and 403; a route with a body, 400, 413 and
 * 415; a POST takes an `Idempotency-Key` and so can answer 422 and a replay; a route
 * with a platform call behind it, 502–504; a browser route answers HTML pages. The
 * OpenAPI document is built from these answers, and a test holds the router's real
 * answers to them (test/openapi-answers.test.ts).
 */
import { ENDPOINTS } from "../platform/endpoints.js";
import type { RouteSpec } from "./routes.js";

export type AnswerContent = "json" | "problem" | "html" | "none";

export interface HeaderSpec {
  description: string;
  /** Sent on every answer of this status (an optional one is sent on some). */
  required: boolean;
  /** The one value it always has, when it has one. */
  value?: string;
}

export interface AnswerSpec {
  status: number;
  description: string;
  content: AnswerContent;
  /** An `html` status that may also be a short plain text (a prefetch's 503). */
  plainTextToo?: boolean;
  /** A `json` success that is CSV when asked for with `Accept: text/csv`. */
  csvToo?: boolean;
  /** A `json` success that is an event stream when asked for with `Accept: text/event-stream`. */
  eventsToo?: boolean;
  headers: Record<string, HeaderSpec>;
}

const NO_STORE: HeaderSpec = { description: "Never cached: the answer is private.", required: true, value: "no-store" };
const NOSNIFF: HeaderSpec = { description: "Read only as the declared type.", required: true, value: "nosniff" };
const NO_REFERRER: HeaderSpec = { description: "The URL may carry a ticket or a wait id: no page it leads to learns it.", required: true, value: "no-referrer" };
const SAME_ORIGIN_REFERRER: HeaderSpec = {
  description: "The URL may carry a wait id: no other site learns it; forms of the host's layout posting to its own site keep their Origin.",
  required: true, value: "same-origin",
};
const RETRY_AFTER: HeaderSpec = { description: "Seconds to wait before trying again.", required: true };
const PRIVATE = { "Cache-Control": NO_STORE, "X-Content-Type-Options": NOSNIFF };

/** What each error status means on the instructor API, unless the route says more. */
const PROBLEMS: Record<number, string> = {
  400: "Invalid input (`validation_error`, with `errors` naming each field), or a body that is not JSON (`malformed_json`).",
  401: "No signed-in user (`unauthenticated`).",
  403: "Not an instructor (`forbidden`), a cross-site browser request (`cross_site_request`), or refused by the platform.",
  404: "The platform does not know this record (`not_found`).",
  409: "The platform reported a conflict, or a request with this `Idempotency-Key` is still in progress (`idempotency_in_progress`, with `Retry-After`).",
  413: "The body is larger than `bodyLimit` (`body_too_large`).",
  415: "The body is not `application/json` (`unsupported_media_type`).",
  422: "This `Idempotency-Key` was sent before with another request (`idempotency_key_reused`).",
  500: "An unexpected error in the router (`internal_error`); it was logged.",
  502: "The platform failed, or refused this server's API key (`upstream_error`, `upstream_unauthorized`).",
  503: "The platform is rate limiting this server (`upstream_rate_limited`); see `Retry-After`.",
  504: "The platform did not answer in time (`upstream_timeout`).",
};

/** Whether a route's request carries a JSON body. */
export function takesBody(route: RouteSpec): boolean {
  return route.body !== undefined || (route.upstream !== undefined && route.feature === "instructor" && "body" in ENDPOINTS[route.upstream]);
}

/** A POST of the instructor API: it takes an `Idempotency-Key`. */
export function isIdempotent(route: RouteSpec): boolean {
  return route.method === "post" && (route.feature === "instructor" || route.feature === "prepare" || route.feature === "gradebook");
}

export function answersOf(route: RouteSpec): AnswerSpec[] {
  if (route.feature === "launch") return launchAnswers(route);
  if (route.feature === "meta") return [{ status: route.status, description: "The OpenAPI 3.1 document.", content: "json", headers: {} }];
  return instructorAnswers(route);
}

function instructorAnswers(route: RouteSpec): AnswerSpec[] {
  const body = takesBody(route);
  const idempotent = isIdempotent(route);
  const upstream = route.upstream !== undefined;
  const statuses = [
    ...(body || route.params ? [400] : []), 401, 403,
    ...(route.notFound ? [404] : []), ...(route.conflict || idempotent ? [409] : []),
    ...(body ? [413, 415] : []), ...(idempotent ? [422] : []), ...(route.capped ? [429] : []), 500, ...(upstream ? [502, 503, 504] : []),
  ];
  const success: AnswerSpec = {
    status: route.status,
    description: route.returns?.description ?? "Done.",
    content: route.returns === undefined || route.returns.kind === "none" ? "none" : "json",
    ...(route.returns && "csv" in route.returns && route.returns.csv ? { csvToo: true } : {}),
    ...(route.returns && "events" in route.returns && route.returns.events ? { eventsToo: true } : {}),
    headers: {
      ...PRIVATE,
      ...(idempotent ? { "Idempotent-Replayed": { description: "`true` when this is the recorded answer of an earlier request with the same `Idempotency-Key`.", required: false, value: "true" } } : {}),
    },
  };
  return [success, ...statuses.map((status): AnswerSpec => ({
    status,
    description: route.descriptions?.[status] ?? PROBLEMS[status]!,
    content: "problem",
    headers: {
      ...PRIVATE,
      // 503 is only ever the platform's rate limit, which always says when; a 409 says it only when in progress.
      ...(status === 503 || status === 429 ? { "Retry-After": RETRY_AFTER } : status === 409 && idempotent ? { "Retry-After": { ...RETRY_AFTER, required: false } } : {}),
    },
  }))];
}

function launchAnswers(route: RouteSpec): AnswerSpec[] {
  const page = { "Cache-Control": NO_STORE, "Referrer-Policy": SAME_ORIGIN_REFERRER, "X-Content-Type-Options": NOSNIFF };
  const descriptions = route.descriptions ?? {};
  const redirect: AnswerSpec = {
    status: 303,
    description:
      "To `{examHost}/exam/{examId}?{ticketParam}={token}` (custom domain) or `{platform host}/exam/{examId}` " +
      "(for a role-play `/exam/{roleplayId}/roleplay`); signed out with `loginUrl` set, to " +
      "`{loginUrl}?returnTo={this path}`; or back to this path when a waiting page's wait id is over.",
    content: "none",
    headers: { Location: { description: "Where the browser goes next.", required: true }, "Cache-Control": NO_STORE, "Referrer-Policy": NO_REFERRER },
  };
  const pages = [202, 400, 401, 403, 404, 409, 429, 500, 502, 503, 504].map((status): AnswerSpec => ({
    status,
    description: (descriptions as Record<number, string>)[status] ?? "An error page.",
    content: "html",
    ...(status === 503 ? { plainTextToo: true } : {}),
    headers: {
      ...page,
      ...(status === 202 ? { Refresh: { description: "`<seconds>;url=<this path>?wait=<id>`: the page follows the student's call.", required: true } } : {}),
      ...(status === 429 ? { "Retry-After": RETRY_AFTER } : status === 503 ? { "Retry-After": { ...RETRY_AFTER, required: false } } : {}),
    },
  }));
  return [redirect, ...pages];
}
