/**
 * No status-only score after a grade: once a grade (`scoreGiven`) is queued or sent for a
 * learner in a course, a later launch's `Started` or return's `Submitted` is not queued for
 * that course. A status post would say the learner is at it again (a new attempt, work to
 * grade) and, on an LMS that clears a grade on a score without one, undo the grade.
 * Canvas is also told to keep it (entries.ts); this keeps the others from being asked at all.
 */
import type { LtiScoreEntry, OralStoreLtiGradebook } from "../../store/lti-gradebook-types.js";

/** Entries of the same course and LMS user. */
const sameLearner = (a: LtiScoreEntry, b: LtiScoreEntry) => a.userId === b.userId && a.key.issuer === b.key.issuer && a.key.clientId === b.key.clientId
  && a.key.deploymentId === b.key.deploymentId && a.key.contextId === b.key.contextId;

/** `entries` less the status-only ones whose learner already has a grade queued or sent (a given-up grade does not count). */
export async function withoutStatusAfterGrade(store: OralStoreLtiGradebook, org: string, entries: LtiScoreEntry[]): Promise<LtiScoreEntry[]> {
  const kept: LtiScoreEntry[] = [];
  for (const e of entries) {
    const student = e.student.orgInternalId ?? e.student.email;
    if (e.score.scoreGiven !== undefined || student === undefined) {
      kept.push(e);
      continue;
    }
    const previous = await store.listLtiScores(org, { kind: e.key.kind, examId: e.key.examId, student, limit: 200 });
    if (!previous.some((p) => p.score.scoreGiven !== undefined && p.state !== "failed" && sameLearner(p, e))) kept.push(e);
  }
  return kept;
}
