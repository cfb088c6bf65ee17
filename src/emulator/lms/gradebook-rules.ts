/**
 * How the LMS emulator's gradebook turns a score into a learner's result, per LMS, so a
 * tool's tests meet what the LMSs do (../shared/LTI.md §9), not the spec's ideal:
 *
 * - `spec` (the emulator's own): the result is the latest score by timestamp; a score
 *   without `scoreGiven` leaves the result without one (AGS 2.0 §3.4.6).
 * - `canvas` (Canvas's Score API): a score without `scoreGiven` **clears** the grade
 *   unless `https://canvas.instructure.com/lti/submission` carries `preserve_score: true`;
 *   a grade typed by the instructor is replaced unless `prioritize_non_tool_grade: true`;
 *   each score starts a new submission attempt unless `new_submission: false`.
 * - `moodle`: a grade item of type None answers 200 and saves nothing.
 */

export type GradebookRules = "spec" | "canvas" | "moodle";

export const CANVAS_SUBMISSION = "https://canvas.instructure.com/lti/submission";

/** A learner's result on a line item, as the LMS keeps it (what `GET {lineitem}/results` answers). */
export interface LmsResult {
  lineItemId: string;
  userId: string;
  activityProgress: string;
  gradingProgress: string;
  scoreGiven?: number;
  scoreMaximum?: number;
  comment?: string;
  /** Submission attempts the LMS counted (Canvas: one per score without `new_submission: false`). */
  attempt: number;
  /** Who set the grade: the tool's score, or an instructor by hand in the LMS. */
  gradedBy?: "tool" | "instructor";
  /** The timestamp of the score (or the hand grading) it reflects. */
  timestamp: string;
}

/** A score's AGS fields, as posted (with the line item it was posted to). */
export interface ScoreFields {
  lineItemId: string;
  userId: string;
  activityProgress: string;
  gradingProgress: string;
  timestamp: string;
  scoreGiven?: number;
  scoreMaximum?: number;
  comment?: string;
}

export interface ScoreIn extends ScoreFields {
  /** The score body's own fields, for vendor extensions. */
  body: Record<string, unknown>;
}

/**
 * The learner's result after `score`, or `undefined` when the LMS saves nothing. A score
 * older than the result is ignored (the spec's rule), as is one on a None-type item (Moodle).
 */
export function applyScore(rules: GradebookRules, had: LmsResult | undefined, score: ScoreIn, gradeType: "value" | "none"): LmsResult | undefined {
  if (rules === "moodle" && gradeType === "none") return had;
  if (had && Date.parse(score.timestamp) < Date.parse(had.timestamp)) return had;
  const base = { lineItemId: score.lineItemId, userId: score.userId, activityProgress: score.activityProgress, gradingProgress: score.gradingProgress, timestamp: score.timestamp };
  const comment = score.comment !== undefined ? { comment: score.comment } : {};
  const given = score.scoreGiven !== undefined ? { scoreGiven: score.scoreGiven, scoreMaximum: score.scoreMaximum!, gradedBy: "tool" as const } : {};
  if (rules !== "canvas") return { ...base, ...comment, ...given, attempt: had?.attempt ?? 1 };
  const ext = (typeof score.body[CANVAS_SUBMISSION] === "object" && score.body[CANVAS_SUBMISSION] !== null ? score.body[CANVAS_SUBMISSION] : {}) as Record<string, unknown>;
  const attempt = (had?.attempt ?? 0) + (ext.new_submission === false ? 0 : 1);
  const graded = had?.scoreGiven !== undefined ? { scoreGiven: had.scoreGiven, scoreMaximum: had.scoreMaximum!, gradedBy: had.gradedBy } : undefined;
  const handGrade = graded?.gradedBy === "instructor";
  if (score.scoreGiven !== undefined) {
    const kept = handGrade && ext.prioritize_non_tool_grade === true ? graded : given;
    return { ...base, ...comment, ...kept, attempt };
  }
  // No scoreGiven: Canvas clears the grade, unless told to keep it.
  const keep = graded && (ext.preserve_score === true || (handGrade && ext.prioritize_non_tool_grade === true));
  return { ...base, ...comment, ...(keep ? graded : {}), attempt };
}
