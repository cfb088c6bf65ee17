/**
 * The body of `POST /oral-assessments/:examId/scores` (and `/roleplays/:roleplayId/scores`):
 * grades for learners who opened the exam from an LMS, posted to the LMS gradebook through
 * the durable outbox. Two forms (../shared/DESIGN.md): the contract's single score
 * `{ studentId, scoreGiven, scoreMaximum, comment }`, and a batch `{ scores: [ … ] }` whose
 * items take the same fields (`student` as an alias of `studentId`). Which form was sent
 * is told by `scores`: a 400 then names the field in that form (`scoreGiven`, or
 * `scores.0.scoreGiven`). Loose, like the other bodies: unknown fields are ignored, not
 * refused. Zod schemas: the router validates with them and the OpenAPI document is
 * generated from them.
 */
import { z } from "zod";
import { ACTIVITY_PROGRESS, GRADING_PROGRESS } from "../store/lti-gradebook-types.js";

const MAX_SCORES = 1_000;

/** The launch record's `student.orgInternalId` (or their e-mail). */
const studentText = z.string().min(1).max(320);

const gradeFields = {
  scoreGiven: z.number().min(0).max(1_000_000).optional(),
  /** Default the line item's (`lti.gradebook.scoreMaximum`, 100). Positive, as the AGS spec says. */
  scoreMaximum: z.number().positive().max(1_000_000).optional(),
  /** Default the last comment sent for this learner (a score without one clears Blackboard's). */
  comment: z.string().min(1).max(4_000).optional(),
  /** Default `Completed`. */
  activityProgress: z.enum(ACTIVITY_PROGRESS).optional(),
  /** Default `FullyGraded` with a `scoreGiven`, else `PendingManual`. */
  gradingProgress: z.enum(GRADING_PROGRESS).optional(),
  /** When the grade was given; default now. */
  timestamp: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time with a zone" }).optional(),
};

interface GradeChecked { scoreGiven?: number | undefined; scoreMaximum?: number | undefined; gradingProgress?: string | undefined }
const gradeChecks = <T extends z.ZodType<GradeChecked>>(schema: T) => schema
  .refine((s) => s.scoreGiven === undefined || s.scoreMaximum === undefined || s.scoreGiven <= s.scoreMaximum, { message: "scoreGiven must not exceed scoreMaximum", path: ["scoreGiven"] })
  .refine((s) => s.gradingProgress !== "FullyGraded" || s.scoreGiven !== undefined, { message: "is required when gradingProgress is FullyGraded", path: ["scoreGiven"] });

/** One item of the batch: `studentId`, or `student` (an `orgInternalId` or e-mail). */
export const ScoreInput = gradeChecks(z.looseObject({ studentId: studentText.optional(), student: studentText.optional(), ...gradeFields }))
  .refine((s) => s.studentId !== undefined || s.student !== undefined, { message: "is required: the launch record's student.orgInternalId (or student: their e-mail)", path: ["studentId"] });

/** The contract's single score. */
export const SingleScoreRequest = gradeChecks(z.looseObject({ studentId: studentText, ...gradeFields }));

export const ScoresBatchRequest = z.looseObject({
  scores: z.array(ScoreInput).min(1, "must list at least one score").max(MAX_SCORES, `must list at most ${MAX_SCORES} scores`),
});

/** Either form (the OpenAPI document's request body). */
export const ScoresRequest = z.union([SingleScoreRequest, ScoresBatchRequest]);
export type ScoresRequestInput = z.input<typeof ScoresBatchRequest>;

/** The schema for what was sent: the batch when the body has `scores`, else the single score. */
export function scoresSchemaOf(body: unknown): typeof SingleScoreRequest | typeof ScoresBatchRequest {
  return body !== null && typeof body === "object" && "scores" in body ? ScoresBatchRequest : SingleScoreRequest;
}

type Grade = z.output<typeof SingleScoreRequest>;
type Batch = z.output<typeof ScoresBatchRequest>;
/** The grades of a parsed body, each naming its student, and the field that names it in the form sent. */
export function gradesOf(parsed: Grade | Batch): { grade: Omit<Grade, "studentId"> & { student: string }; field: string }[] {
  if (!Array.isArray(parsed.scores)) {
    const { studentId, ...grade } = parsed as Grade;
    return [{ grade: { ...grade, student: studentId }, field: "studentId" }];
  }
  return (parsed as Batch).scores.map((s, i) => {
    const { studentId, student, ...grade } = s;
    return { grade: { ...grade, student: (studentId ?? student)! }, field: `scores[${i}].${studentId !== undefined ? "studentId" : "student"}` };
  });
}
