/**
 * An instructor's launch of a resource link (issue point 7): a page naming the exam, its
 * class and course, whether students who follow the link reach it (the organization's
 * store knows the exam: the launch will find its class), and where the instructor API
 * reports its preparation (`GET <mount>/oral-assessments/:examId/prepare`, behind the
 * app's instructor sign-in). Nothing is asked of the platform.
 */
import type { Request, Response } from "express";
import type { Logger } from "../core/logger.js";
import type { LtiCatalog } from "./catalog.js";
import { CLAIM } from "./claims.js";
import { launchOrganization } from "./launch-organization.js";
import { escapeHtml, sendLtiPage } from "./pages.js";
import type { LtiSettings } from "./settings.js";
import { toolBase } from "./tool-url.js";
import type { VerifiedLaunch } from "./verify-launch.js";

const ID = /^[A-Za-z0-9_-]{1,128}$/;

export async function instructorPage(req: Request, res: Response, launch: VerifiedLaunch, deps: {
  settings: LtiSettings; catalog: LtiCatalog; logger: Logger; frameAncestors: readonly string[];
}): Promise<void> {
  const { frameAncestors } = deps;
  const custom = (launch.claims[CLAIM.custom] ?? {}) as Record<string, unknown>;
  const kind = custom.roleplay_id !== undefined ? "roleplay" : "oral";
  const id = kind === "roleplay" ? custom.roleplay_id : custom.exam_id;
  const param = kind === "roleplay" ? "roleplay_id" : "exam_id";
  if (typeof id !== "string" || !ID.test(id)) {
    deps.logger.info({ event: "lti_launch", outcome: "instructor", status: "no_exam" }, "LTI instructor launch of a link naming no exam");
    return sendLtiPage(res, frameAncestors, { status: 200, title: "This link names no exam", message: `Students who open it are refused. Give the link the custom parameter ${param}=<id>, or add the exam again with the tool's Deep Linking (the exam picker).` });
  }
  const org = await launchOrganization(req, res, launch, deps);
  if (org === undefined) return;
  const exam = await deps.catalog.exam(org, kind, id);
  deps.logger.info({ event: "lti_launch", outcome: "instructor", examId: id, status: exam ? "ready" : "unknown" }, "LTI instructor launch");
  const what = kind === "roleplay" ? "role-play" : "oral exam";
  if (!exam) {
    return sendLtiPage(res, frameAncestors, {
      status: 200, title: `Unknown ${what} ${id}`,
      message: `This tool's exams for your school include no ${what} ${id}: students who open this link see "Exam not found". Add the link again with the exam picker, or fix its ${param}.`,
    });
  }
  const prepare = `${toolBase(req, deps.settings.toolUrl)}/oral-assessments/${encodeURIComponent(exam.id)}/prepare`;
  sendLtiPage(res, frameAncestors, {
    status: 200, title: exam.name, message: `The ${what} of ${exam.className} (${exam.courseName}).`,
    body: `<dl><dt>Class</dt><dd id="class">${escapeHtml(exam.className)}</dd><dt>Course</dt><dd>${escapeHtml(exam.courseName)}</dd>`
      + `<dt>Student link</dt><dd id="status">Ready: students who open this link start this ${what}, signed in as themselves.</dd></dl>`
      + (kind === "oral" ? `<p><a id="prepare" href="${escapeHtml(prepare)}" target="_blank" rel="noopener noreferrer">Preparation status</a> (the instructor API; sign in to the app as an instructor).</p>` : ""),
  });
}
