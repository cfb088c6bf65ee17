/**
 * What the LMS holds, read before a grade is posted, where the LMS granted the reads:
 *
 * - With `lineitem.readonly` (or `lineitem`): the line item, once per line item while it is
 *   fine. One without a `scoreMaximum` above 0 keeps no grade (Moodle's grade type None
 *   answers 200 and saves nothing): the grade is not posted, and the entry fails saying so
 *   (the launch record's `meta.gradebook`); it is read again at the next grade.
 * - With `result.readonly`: the learner's result (`GET {lineitem}/results?user_id=`). The
 *   same grade there already (the same fraction `scoreGiven / scoreMaximum`, and the same
 *   comment when the LMS shows one): nothing is posted (`unchanged`). A grade there that the
 *   tool never sent to this learner is an instructor's, typed in the LMS: kept as the
 *   entry's `handGrade` note, and the tool's grade goes (the app asked for it). With
 *   either, `lmsResultAt`: when the result last changed, where the LMS shows it.
 *
 * A read the LMS refuses (403, 404) is no reason to hold a grade: it is posted unread. A
 * read that fails otherwise (the LMS down) is retried with the post, as a post would be.
 */
import type { Logger } from "../../core/logger.js";
import type { LtiScoreRecord, OralStoreLtiGradebook } from "../../store/lti-gradebook-types.js";
import { ServiceAccessError } from "../lms/service-access.js";
import type { AgsResult, AssignmentsGradesService } from "../services/ags.js";
import { SendFailure } from "./send-failure.js";

/** Line items known to keep grades, at most this many remembered. */
const KEPT_ITEMS = 10_000;

/** Two fractions of a grade equal to a part in a billion (85/100 is 17/20). */
export const sameFraction = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

const fractionOf = (r: AgsResult) => (r.resultScore ?? 0) / (r.resultMaximum ?? 1);

/**
 * What the LMS held when a grade went: the entry's note, kept by the store whole and shown
 * whole in the launch record's `meta.gradebook` score (a new field here is a new field there).
 * `unchanged`, it had this grade already and nothing was posted; `handGrade`, the learner's
 * result was a grade the tool never sent (an instructor's, typed in the LMS). A type, not an
 * interface: it is the store's `LtiScoreNote`, an object of any fields.
 */
export type GradeNote = {
  unchanged?: true;
  handGrade?: { scoreGiven: number; scoreMaximum: number; comment?: string };
  /** When the LMS's result was last changed, when the LMS shows it (ISO 8601). */
  lmsResultAt?: string;
};

export interface GradeCheck {
  /** False: the LMS has this grade already. */
  post: boolean;
  note?: GradeNote;
}

export function lmsReads(deps: { store: OralStoreLtiGradebook; logger: Logger }) {
  const keeps = new Set<string>();

  /** The read's answer, or undefined when the LMS refused it (403, 404): the grade is posted unread. */
  async function unlessRefused<T>(read: () => Promise<T>, what: string): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ServiceAccessError) || error.kind !== "refused") throw error;
      deps.logger.info({ event: "lti_read_refused", what, status: error.status }, `the LMS refused to show the ${what}: the grade is posted unread`);
      return undefined;
    }
  }

  /** Throws a SendFailure (not retried) when the line item keeps no grade. */
  async function checkLineItem(ags: AssignmentsGradesService, lineItem: string): Promise<void> {
    if (keeps.has(lineItem) || !ags.canReadLineItems()) return;
    const item = await unlessRefused(() => ags.lineItem(lineItem), "line item");
    if (!item) return;
    if (typeof item.scoreMaximum !== "number" || !(item.scoreMaximum > 0)) {
      throw new SendFailure("The LMS will not keep this grade: its line item has no scoreMaximum above 0 (Moodle: a grade item of type None). Set the grade item's type to Point in the LMS, then send the grade again.", false);
    }
    if (keeps.size >= KEPT_ITEMS) keeps.clear();
    keeps.add(lineItem);
  }

  /** The grades the tool sent this learner in this course for this exam, as fractions. */
  async function sentFractions(r: LtiScoreRecord): Promise<number[]> {
    const student = r.student.orgInternalId ?? r.student.email;
    if (student === undefined) return [];
    const previous = await deps.store.listLtiScores(r.org, { kind: r.key.kind, examId: r.key.examId, student, limit: 200 });
    return previous.filter((p) => p.state === "sent" && p.userId === r.userId && p.key.issuer === r.key.issuer && p.key.clientId === r.key.clientId
      && p.key.deploymentId === r.key.deploymentId && p.key.contextId === r.key.contextId && p.score.scoreGiven !== undefined && p.score.scoreMaximum)
      .map((p) => p.score.scoreGiven! / p.score.scoreMaximum!);
  }

  /** Before a grade: whether to post it, and what the LMS held. */
  async function beforeGrade(ags: AssignmentsGradesService, lineItem: string, r: LtiScoreRecord): Promise<GradeCheck> {
    const { scoreGiven, scoreMaximum, comment } = r.score;
    if (scoreGiven === undefined || !scoreMaximum) return { post: true };
    await checkLineItem(ags, lineItem);
    if (!ags.can("result.readonly")) return { post: true };
    const results = await unlessRefused(() => ags.results(lineItem, r.userId), "result");
    const held = results?.find((x) => x.resultScore !== undefined);
    if (!held) return { post: true };
    const fraction = fractionOf(held);
    const note: GradeNote = {};
    if (!(await sentFractions(r)).some((f) => sameFraction(f, fraction))) {
      note.handGrade = { scoreGiven: held.resultScore!, scoreMaximum: held.resultMaximum ?? 1, ...(held.comment !== undefined ? { comment: held.comment } : {}) };
    }
    const unchanged = sameFraction(fraction, scoreGiven / scoreMaximum) && (held.comment === undefined || held.comment === comment);
    if (unchanged) note.unchanged = true;
    if ((note.unchanged || note.handGrade) && held.timestamp !== undefined) note.lmsResultAt = held.timestamp;
    return { post: !unchanged, ...(note.unchanged || note.handGrade ? { note } : {}) };
  }

  return { beforeGrade };
}
