/**
 * The scores the tool queues: a launch's `Started` / `NotReady`, a return's `Submitted` /
 * `PendingManual`, and a grade from the app. Each carries a comment (Blackboard clears
 * the comment of a score posted without one) and, once the learner submitted,
 * `submittedAt` (Canvas otherwise takes the grading's time as a late submission,
 * canvas-lms#1799).
 *
 * A status-only score (no `scoreGiven`) must never clear or replace a grade: Canvas clears
 * an existing grade on one unless told `preserve_score`, replaces an instructor's grade
 * unless told `prioritize_non_tool_grade`, and starts a new submission attempt unless told
 * `new_submission: false`. So every status-only body carries Canvas's submission extension
 * (other LMSs ignore the extension's name, as the AGS spec asks of unknown properties).
 */
import { randomId } from "../../core/random-id.js";
import { humanTime } from "../../core/human-time.js";
import type { ExamKind } from "../../store/types.js";
import type { ActivityProgress, GradingProgress, LtiScoreEntry, LtiScoreRecord } from "../../store/lti-gradebook-types.js";
import type { LaunchGradebook } from "../launch/launch-gradebook.js";

const WHAT: Record<ExamKind, string> = { oral: "Oral exam", roleplay: "Role-play" };

export interface Learner {
  kind: ExamKind;
  examId: string;
  student: { orgInternalId?: string; email?: string };
  launch: LaunchGradebook;
}

function entry(id: string, l: Learner, score: LtiScoreEntry["score"]): LtiScoreEntry {
  return {
    id, key: { ...l.launch.course, kind: l.kind, examId: l.examId }, userId: l.launch.userId, student: l.student,
    ...(l.launch.resourceLinkId ? { resourceLinkId: l.launch.resourceLinkId } : {}),
    ags: l.launch.ags, label: l.launch.title ?? `${WHAT[l.kind]} ${l.examId}`, score, queuedAt: new Date().toISOString(),
  };
}

/** The launch reached the exam. One per exam link (`linkId`): a waiting page's refreshes queue nothing more. */
export function startedEntry(l: Learner, linkId: string, at = new Date()): LtiScoreEntry {
  const t = at.toISOString();
  return entry(`started:${linkId}`, l, {
    activityProgress: "Started", gradingProgress: "NotReady", timestamp: t, startedAt: l.launch.launchedAt,
    comment: `Started the ${WHAT[l.kind].toLowerCase()} on ${humanTime(at)} (launched from the LMS).`,
  });
}

/**
 * The learner came back through `/lti/return`: a hint that they finished, not proof. One
 * per return mark (`markId`): a replayed return queues nothing more.
 */
export function submittedEntry(l: Learner, markId: string, at = new Date()): LtiScoreEntry {
  const t = at.toISOString();
  return entry(`returned:${markId}`, l, {
    activityProgress: "Submitted", gradingProgress: "PendingManual", timestamp: t, startedAt: l.launch.launchedAt, submittedAt: t,
    comment: `Came back from the ${WHAT[l.kind].toLowerCase()} on ${humanTime(at)}: submitted, awaiting grading (a sign from the exam site's redirect, not proof).`,
  });
}

export interface GradeInput {
  scoreGiven?: number;
  scoreMaximum?: number;
  comment?: string;
  activityProgress?: ActivityProgress;
  gradingProgress?: GradingProgress;
  /** ISO 8601; default now. */
  timestamp?: string;
}

/**
 * A grade for a learner, built from their latest entry on this exam and course (who and
 * where); `submittedAt` from their return, else their launch; the comment, when the app
 * gives none, the last one sent (so Blackboard keeps it).
 */
export function gradeEntry(previous: readonly LtiScoreRecord[], grade: GradeInput, scoreMaximum: number): LtiScoreEntry {
  const latest = previous[0]!;
  const returned = previous.find((r) => r.score.activityProgress === "Submitted" || r.score.activityProgress === "Completed");
  const submittedAt = returned?.score.submittedAt ?? returned?.score.timestamp ?? latest.score.startedAt ?? previous.at(-1)!.score.timestamp;
  const graded = grade.scoreGiven !== undefined;
  return {
    ...latest,
    id: `graded:${randomId(16)}`,
    queuedAt: new Date().toISOString(),
    score: {
      activityProgress: grade.activityProgress ?? "Completed",
      gradingProgress: grade.gradingProgress ?? (graded ? "FullyGraded" : "PendingManual"),
      timestamp: grade.timestamp ?? new Date().toISOString(),
      ...(graded ? { scoreGiven: grade.scoreGiven, scoreMaximum: grade.scoreMaximum ?? scoreMaximum } : {}),
      comment: grade.comment ?? latest.score.comment,
      submittedAt,
      ...(latest.score.startedAt ? { startedAt: latest.score.startedAt } : {}),
    },
  };
}

export const CANVAS_SUBMISSION = "https://canvas.instructure.com/lti/submission";

/** What Canvas is told with a status-only score: keep the grade (the tool's or an instructor's); a launch is no new attempt. */
export function gradeSafeExtension(s: Pick<LtiScoreEntry["score"], "activityProgress">): Record<string, boolean> {
  return { preserve_score: true, prioritize_non_tool_grade: true, ...(s.activityProgress === "Started" ? { new_submission: false } : {}) };
}

/** The score's body for the LMS (`application/vnd.ims.lis.v1.score+json`). */
export function scoreBody(r: Pick<LtiScoreEntry, "userId" | "score">): Record<string, unknown> {
  const s = r.score;
  return {
    ...(s.scoreGiven === undefined ? { [CANVAS_SUBMISSION]: gradeSafeExtension(s) } : {}),
    userId: r.userId, activityProgress: s.activityProgress, gradingProgress: s.gradingProgress, timestamp: s.timestamp, comment: s.comment,
    ...(s.scoreGiven !== undefined ? { scoreGiven: s.scoreGiven, scoreMaximum: s.scoreMaximum } : {}),
    ...(s.startedAt || s.submittedAt ? { submission: { ...(s.startedAt ? { startedAt: s.startedAt } : {}), ...(s.submittedAt ? { submittedAt: s.submittedAt } : {}) } } : {}),
  };
}
