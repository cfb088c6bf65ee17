/**
 * A refused LTI request: a 400/401 page that says what to tell the LMS administrator, and
 * one log line naming the check that failed. Nothing is sent to the platform.
 */
import type { Response } from "express";
import type { Logger } from "../core/logger.js";
import { sendLtiPage } from "./pages.js";

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
  logger.warn({ event: "lti_refused", check: r.check, status: r.status, ...r.detail }, `LTI launch refused: ${r.check}`);
  sendLtiPage(res, frameAncestors, {
    status: r.status, title: r.title,
    message: r.message ?? "Your LMS sent a launch this tool cannot accept. Please tell your LMS administrator what is written below.",
    forAdministrator: r.forAdministrator,
  });
}
