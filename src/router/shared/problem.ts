/**
 * RFC 9457 problem details for the instructor API. `Problem` is public: integrators
 * read these fields from the router's error answers.
 */
import type { Response } from "express";
import type { PlatformError } from "../../platform/errors.js";
import { failureOf } from "./platform-failures.js";
import { privateAnswerHeaders } from "./json-answer.js";

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
  privateAnswerHeaders(res);
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

/** A platform failure as problem+json: status, code and title from the one mapping (`platform-failures.ts`). */
export function problemFromPlatform(error: PlatformError): Problem {
  const { status, code, title } = failureOf(error);
  const requestId = error.requestId;
  const withField = error.field ? [{ path: error.field, message: error.message }] : undefined;
  switch (error.kind) {
    case "invalid_request":
      return { ...invalidInput(issuesOfInvalid(error)), requestId };
    case "auth":
      return { status, code: code ?? error.code, title, detail: "The API key is invalid, revoked, or for the other environment. Check the server's configuration.", requestId };
    case "rate_limited":
      return { status, code: code ?? error.code, title, detail: "Too many requests to the platform; try again shortly.", retryAfter: error.retryAfter ?? 5, requestId };
    default: {
      // The platform's own field-level answers (400, 409, a passed-through 4xx) keep their field.
      const keepsField = error.kind === "validation" || error.kind === "conflict" || (error.kind === "http" && status < 500);
      const errors = keepsField ? withField : undefined;
      return { status, code: code ?? error.code, title, detail: error.message, ...(errors ? { errors } : {}), requestId };
    }
  }
}

function issuesOfInvalid(error: PlatformError): { path: string; message: string }[] {
  const issues = (error as PlatformError & { issues?: { path: string; message: string }[] }).issues;
  return issues && issues.length > 0 ? [...issues] : [{ path: error.field ?? "(body)", message: error.message }];
}
