/**
 * The body of `POST /oral-assessments/:examId/scores`: grades for learners who opened the
 * exam from an LMS, posted to the LMS gradebook through the durable outbox. Loose, like the
 * other bodies: unknown fields are ignored, not refused. A zod schema:
 * the router validates with it and the OpenAPI document is generated from it.
 */
import { z } from "zod";
import { ACTIVITY_PROGRESS, GRADING_PROGRESS } from "../store/lti-gradebook-types.js";

const MAX_SCORES = 1_000;

export const ScoreInput = z.looseObject({
  /** Their `orgInternalId` or e-mail, as the launch record shows them. */
  student: z.string().min(1).max(320),
  scoreGiven: z.number().min(0).max(1_000_000).optional(),
  /** Default the line item's (`lti.gradebook.scoreMaximum`, 100). */
  scoreMaximum: z.number().positive().max(1_000_000).optional(),
  /** Default the last comment sent for this learner (a score without one clears Blackboard's). */
  comment: z.string().min(1).max(4_000).optional(),
  /** Default `Completed`. */
  activityProgress: z.enum(ACTIVITY_PROGRESS).optional(),
  /** Default `FullyGraded` with a `scoreGiven`, else `PendingManual`. */
  gradingProgress: z.enum(GRADING_PROGRESS).optional(),
  /** When the grade was given; default now. */
  timestamp: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time with a zone" }).optional(),
}).refine((s) => s.scoreGiven === undefined || s.scoreMaximum === undefined || s.scoreGiven <= s.scoreMaximum, { message: "scoreGiven must not exceed scoreMaximum", path: ["scoreGiven"] })
  .refine((s) => s.gradingProgress !== "FullyGraded" || s.scoreGiven !== undefined, { message: "is required when gradingProgress is FullyGraded", path: ["scoreGiven"] });

export const ScoresRequest = z.looseObject({
  scores: z.array(ScoreInput).min(1, "must list at least one score").max(MAX_SCORES, `must list at most ${MAX_SCORES} scores`),
});
export type ScoresRequestInput = z.input<typeof ScoresRequest>;
