/**
 * RFC 9457 problem details for the instructor API, and the one mapping from platform
 * failures to what our caller sees.
 */
import type { Response } from "express";
import { PlatformError } from "../../platform/errors.js";

export interface Problem {
  status: number;
  /** Stable, machine-readable (`validation_error`, `not_found`, `upstream_timeout`…). */
  code: string;
  title: string;
  detail: string;
  /** Invalid input: one entry per field. */
  errors?: { path: string; message: string }[];
  /** Seconds, sent as the `Retry-After` header too. */
  retryAfter?: number;
  requestId?: string;
}

export const PROBLEM_TYPE_BASE = "urn:express-oral-assessments:problem:";

export function sendProblem(res: Response, problem: Problem): void {
  if (res.headersSent) return;
  if (problem.retryAfter !== undefined) res.setHeader("Retry-After", String(Math.max(1, Math.ceil(problem.retryAfter))));
  res.status(problem.status);
  res.setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  const body: Record<string, unknown> = {
    type: PROBLEM_TYPE_BASE + problem.code,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
  };
  if (problem.errors) body.errors = problem.errors;
  if (problem.requestId) body.requestId = problem.requestId;
  res.end(JSON.stringify(body));
}

export function invalidInput(errors: { path: string; message: string }[], detail?: string): Problem {
  return {
    status: 400,
    code: "validation_error",
    title: "Invalid request",
    detail: detail ?? errors.map((e) => `${e.path}: ${e.message}`).join("; "),
    errors,
  };
}

/**
 * What a platform failure becomes for our caller. The platform's own 4xx answers pass
 * through with their code and field, except 401: that means *our server's key* was
 * refused, which is a gateway problem (502), not "you are not logged in".
 */
export function problemFromPlatform(error: PlatformError): Problem {
  const requestId = error.requestId;
  const withField = error.field ? [{ path: error.field, message: error.message }] : undefined;
  switch (error.kind) {
    case "invalid_request":
      return { ...invalidInput(issuesOfInvalid(error)), requestId };
    case "validation":
      return { status: 400, code: error.code, title: "The platform rejected the request", detail: error.message, errors: withField, requestId };
    case "permission":
      return { status: 403, code: error.code, title: "Forbidden by the platform", detail: error.message, requestId };
    case "not_found":
      return { status: 404, code: error.code, title: "Not found", detail: error.message, requestId };
    case "conflict":
      return { status: 409, code: error.code, title: "Conflict", detail: error.message, errors: withField, requestId };
    case "auth":
      return { status: 502, code: "upstream_unauthorized", title: "The platform refused this server's API key", detail: "The API key is invalid, revoked, or for the other environment. Check the server's configuration.", requestId };
    case "rate_limited":
      return { status: 503, code: "upstream_rate_limited", title: "The platform is rate limiting this server", detail: "Too many requests to the platform; try again shortly.", retryAfter: error.retryAfter ?? 5, requestId };
    case "timeout":
      return { status: 504, code: "upstream_timeout", title: "The platform did not answer in time", detail: error.message, requestId };
    case "http":
      if (error.status !== undefined && error.status >= 400 && error.status < 500) {
        return { status: error.status, code: error.code, title: "The platform rejected the request", detail: error.message, errors: withField, requestId };
      }
      return { status: 502, code: "upstream_error", title: "The platform failed", detail: error.message, requestId };
    default: // server, network, bad_response
      return { status: 502, code: "upstream_error", title: "The platform failed", detail: error.message, requestId };
  }
}

function issuesOfInvalid(error: PlatformError): { path: string; message: string }[] {
  const issues = (error as PlatformError & { issues?: { path: string; message: string }[] }).issues;
  return issues && issues.length > 0 ? [...issues] : [{ path: error.field ?? "(body)", message: error.message }];
}
