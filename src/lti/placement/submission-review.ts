/**
 * Submission Review (`LtiSubmissionReviewRequest`, LTI Assignment and Grade Services'
 * Submission Review 1.0): the LMS gradebook's "view submission" for one learner, named by
 * the `for_user` claim. An instructor (staff role) of an LMS course linked to the exam's
 * class sees that learner's record for the exam; a learner sees their own (`for_user` is
 * themselves); anyone else gets a page saying why not. The record: the learner's launches
 * that reached the exam route (the router's launch records), what the tool told the LMS
 * gradebook (each score: when, progress, score, and whether it was delivered), the return
 * time, and a link to the exam's launch record in the instructor API.
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import { escapeHtml } from "../../core/html.js";
import type { OralStoreLaunches } from "../../store/launch-types.js";
import type { LtiScoreRecord } from "../../store/lti-gradebook-types.js";
import type { OralStoreLti } from "../../store/lti-types.js";
import type { LtiCatalog } from "./catalog.js";
import { isInstructorRole } from "../shared/claims.js";
import { courseOf } from "./course-binding.js";
import { launchOrganization } from "./launch-organization.js";
import { sendLtiPage } from "../shared/pages.js";
import { refuse } from "../shared/refusal.js";
import type { LtiSettings } from "../settings/settings.js";
import { toolBase } from "../shared/tool-url.js";
import type { VerifiedLaunch } from "../launch/verify-launch.js";

export interface SubmissionReviewDeps {
  settings: LtiSettings;
  catalog: LtiCatalog;
  store: OralStoreLti;
  /** The router's launch records; undefined: the store keeps none (the page then shows the gradebook's only). */
  launches: OralStoreLaunches | undefined;
  logger: Logger;
  frameAncestors: readonly string[];
}

const when = (iso: string | undefined) => (iso ? escapeHtml(iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC")) : "—");
const DELIVERY: Record<LtiScoreRecord["state"], string> = { sent: "delivered", pending: "waiting to be sent", failed: "not delivered", superseded: "replaced by a newer one before it was sent" };

export async function submissionReview(req: Request, res: Response, launch: VerifiedLaunch, deps: SubmissionReviewDeps): Promise<void> {
  const { logger, frameAncestors } = deps;
  const refuseWith = (status: number, check: string, title: string, message: string, forAdministrator: string) =>
    refuse(res, logger, frameAncestors, { status, check, title, message, forAdministrator });
  const forUser = launch.forUser;
  const named = launch.exam;
  const course = courseOf(launch);
  if (!forUser) return refuseWith(400, "for_user", "This review could not be opened", "Your LMS did not say whose submission to show.", "A Submission Review launch must carry the for_user claim with the learner's user_id.");
  if (!named || !course) return refuseWith(400, "submission_review_link", "This review could not be opened", "This link names no exam of a course.", "The Submission Review launch names no exam (custom exam_id) or no course (context).");
  const org = await launchOrganization(req, res, launch, deps);
  if (org === undefined) return;
  const exam = await deps.catalog.exam(org, named.kind, named.id);
  const linked = exam && (await deps.store.getLtiCourseLink(org, course, exam.classId));
  const own = forUser.userId === launch.userId;
  const staff = isInstructorRole(launch.roles, deps.settings.rolesWithoutContext);
  if (!exam || !linked || !(own || staff)) {
    return refuseWith(403, "submission_review", "You cannot see this submission",
      !exam || !linked ? "This exam is not open in this course, so it has no submissions here." : "Only the course's instructors, and the learner themselves, can see a learner's submission.",
      `Submission Review shows a learner's record to the staff of a course linked to the exam's class, and to the learner (for_user = sub). ${!exam ? "The exam is unknown." : !linked ? "This course is not linked to the exam's class." : "The launch's user is neither staff nor the learner named by for_user."}`);
  }
  const scores = (await deps.store.listLtiScores(org, { kind: named.kind, examId: exam.id, limit: 500 }))
    .filter((s) => s.userId === forUser.userId && s.key.issuer === course.issuer && s.key.contextId === course.contextId);
  const student = scores.find((s) => s.student.orgInternalId || s.student.email)?.student;
  const studentKey = student?.orgInternalId ?? student?.email;
  const launches = deps.launches && studentKey ? (await deps.launches.listLaunches(org, { kind: named.kind, examId: exam.id, student: studentKey, limit: 50 })).records : [];
  const returned = scores.find((s) => s.score.activityProgress === "Submitted")?.score.submittedAt;
  const graded = scores.find((s) => s.score.scoreGiven !== undefined);
  logger.info({ event: "lti_launch", outcome: "submission_review", examId: exam.id, own, entries: scores.length }, "LTI Submission Review");
  const who = forUser.name ?? student?.email ?? forUser.email ?? "this learner";
  const recordApi = `${toolBase(req, deps.settings.toolUrl)}/${named.kind === "roleplay" ? "roleplays" : "oral-assessments"}/${encodeURIComponent(exam.id)}/launches${studentKey ? `?student=${encodeURIComponent(studentKey)}` : ""}`;
  const launchRows = launches.map((l) => `<tr><td>${when(l.at)}</td><td>${escapeHtml(l.outcome)}</td></tr>`).join("");
  const scoreRows = scores.map((s) => `<tr><td>${when(s.score.timestamp)}</td><td>${escapeHtml(s.score.activityProgress)} / ${escapeHtml(s.score.gradingProgress)}</td>`
    + `<td>${s.score.scoreGiven !== undefined ? `${s.score.scoreGiven} / ${s.score.scoreMaximum ?? "?"}` : "—"}</td><td>${DELIVERY[s.state]}</td></tr>`).join("");
  sendLtiPage(res, frameAncestors, {
    status: 200, title: `${exam.name}: ${who}`,
    message: own ? "Your record for this exam." : `The record of ${who} for this exam (${exam.className}).`,
    body: `<dl id="summary"><dt>Launches</dt><dd id="launch-count">${launches.length}</dd>`
      + `<dt>Came back from the exam</dt><dd id="returned">${when(returned)}</dd>`
      + `<dt>Outcome</dt><dd id="outcome">${graded ? `graded ${graded.score.scoreGiven} / ${graded.score.scoreMaximum ?? "?"}` : scores.length > 0 ? "not graded yet" : "not started"}</dd></dl>`
      + `<h2>Launches</h2>${launchRows ? `<div class="scroll"><table id="launches"><thead><tr><th>When</th><th>Outcome</th></tr></thead><tbody>${launchRows}</tbody></table></div>` : "<p>No launch recorded.</p>"}`
      + `<h2>What the gradebook was told</h2>${scoreRows ? `<div class="scroll"><table id="gradebook"><thead><tr><th>When</th><th>Progress</th><th>Score</th><th>Delivery</th></tr></thead><tbody>${scoreRows}</tbody></table></div>` : "<p>Nothing yet.</p>"}`
      + (own ? "" : `<p><a id="exam-record" href="${escapeHtml(recordApi)}" target="_blank" rel="noopener noreferrer">The exam's launch record on the platform</a> (the instructor API; sign in to the app as an instructor).</p>`),
  });
}
