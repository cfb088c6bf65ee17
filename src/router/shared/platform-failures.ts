/**
 * The one mapping from a platform failure to what our caller sees: the status, and for
 * failures that are ours to explain (not the platform's own 4xx answer) a stable code and
 * a title. The instructor API turns it into problem+json (`problemFromPlatform`), the
 * launch route into an HTML page (`launch/pages.ts`), so the two cannot disagree on, say,
 * whether a rate-limited platform is a 503.
 *
 * The platform's own 4xx answers pass through with their code and field, except 401:
 * that means *our server's key* was refused, which is a gateway problem (502), not "you
 * are not logged in".
 */
import type { PlatformError, PlatformErrorKind } from "../../platform/errors.js";

export interface FailureMapping {
  status: number;
  /** Our code; undefined: the platform's own code passes through. */
  code: string | undefined;
  title: string;
}

const BY_KIND: Record<PlatformErrorKind, FailureMapping> = {
  invalid_request: { status: 400, code: "validation_error", title: "Invalid request" },
  validation: { status: 400, code: undefined, title: "The platform rejected the request" },
  permission: { status: 403, code: undefined, title: "Forbidden by the platform" },
  not_found: { status: 404, code: undefined, title: "Not found" },
  conflict: { status: 409, code: undefined, title: "Conflict" },
  auth: { status: 502, code: "upstream_unauthorized", title: "The platform refused this server's API key" },
  rate_limited: { status: 503, code: "upstream_rate_limited", title: "The platform is rate limiting this server" },
  timeout: { status: 504, code: "upstream_timeout", title: "The platform did not answer in time" },
  http: { status: 502, code: "upstream_error", title: "The platform failed" },
  server: { status: 502, code: "upstream_error", title: "The platform failed" },
  network: { status: 502, code: "upstream_error", title: "The platform failed" },
  bad_response: { status: 502, code: "upstream_error", title: "The platform failed" },
};

const PASSED_THROUGH_4XX: FailureMapping = { status: 0, code: undefined, title: "The platform rejected the request" };

/** What this failure is for our caller. */
export function failureOf(error: PlatformError): FailureMapping {
  // An unclassified 4xx from the platform keeps its status (e.g. 422, 410).
  if (error.kind === "http" && error.status !== undefined && error.status >= 400 && error.status < 500) {
    return { ...PASSED_THROUGH_4XX, status: error.status };
  }
  return BY_KIND[error.kind] ?? BY_KIND.server;
}
