/**
 * A refused LTI request: a 400/401 page that says what to tell the LMS administrator, and
 * one log line naming the check that failed. Nothing is sent to the platform.
 *
 * The refusal page tells the LMS administrator to ask for this line: so without a `logger`
 * option it is one `console.warn` line (the router's default logger writes warnings there;
 * a silent logger given here still writes it). What is logged never holds a token, a key
 * or a secret (the callers' contract).
 */
import type { Response } from "express";
import { silentLogger, type Logger } from "../../core/logger.js";
import { sendLtiPage } from "./pages.js";

/** `logger.warn`, or with the default silent logger, one console line. */
export function warnRefusal(logger: Logger, line: Record<string, unknown>, msg: string): void {
  if (logger === silentLogger) console.warn(`[express-oral-assessments] ${msg} ${JSON.stringify(line)}`);
  else logger.warn(line, msg);
}

export interface Refusal {
  status: number;
  /** The check that failed, as logged (`signature`, `aud`, `nonce`, `deployment_id`, …). */
  check: string;
  title: string;
  /** What the learner reads; default: a generic sentence. */
  message?: string;
  forAdministrator: string;
  /** Logged with the check (never a token or a key). */
  detail?: Record<string, unknown>;
}

export function refuse(res: Response, logger: Logger, frameAncestors: readonly string[], r: Refusal): void {
  warnRefusal(logger, { event: "lti_refused", check: r.check, status: r.status, ...r.detail }, `LTI launch refused: ${r.check}`);
  sendLtiPage(res, frameAncestors, {
    status: r.status, title: r.title,
    message: r.message ?? "Your LMS sent a launch this tool cannot accept. Please tell your LMS administrator what is written below.",
    forAdministrator: r.forAdministrator,
  });
}
