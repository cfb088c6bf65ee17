/**
 * Oral assessments. Every field the reference documents is typed; fields it does not
 * document pass through untouched (loose objects). The client fills only what the
 * reference's defaults make harmless to send (`duration` 600, `examType` `Generic`) and
 * question ids; it never invents `questions`: without them the platform generates a
 * fallback question itself.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { PassThroughValue } from "../pass-through.js";
import { ExamType, FreeText, Language, NonEmptyText, RecordId, Seconds, atLeastOneField, requestObject } from "./primitives.js";

/** A question; its `id` is generated when missing, so callers may send text only. */
export const Question = requestObject({
  id: z.string().trim().min(1).max(100).optional(),
  text: NonEmptyText(4000),
})
  .transform((q) => ({ ...q, id: q.id ?? `q_${randomUUID()}` }));
export type QuestionInput = z.input<typeof Question>;

/**
 * Given questions: at least one. An empty list is refused rather than guessed at: leave
 * `questions` out to have the platform generate its fallback question.
 */
const Questions = z
  .array(Question)
  .min(1, "must hold at least one question; leave questions out to have the platform generate one")
  .max(200, "must hold at most 200 questions");

export const EvaluationStrategy = z.enum(["ai-rubric", "model-answer", "curriculum"]);

/** Evaluation criteria; the reference lists these keys "etc.", so others pass through. */
export const Criteria = requestObject({
  /** `"ai"` per the reference's example; other values not stated (a pending change adds `"teacher"` and `null`). */
  rubricType: z.string().optional(),
  selectedCurriculumItems: z.array(z.string()).optional(),
  successCriteria: z.string().optional(),
});

/** The optional fields, with the reference's defaults noted (the platform applies them). */
const optionalFields = {
  /** Seconds; platform default 600. */
  duration: Seconds,
  /** Platform default `Generic`. */
  examType: ExamType,
  /** Topic or context; platform default `""`. */
  examDescription: FreeText(20_000),
  /** Extra instructions to students; platform default `""`. */
  instructions: FreeText(20_000),
  /** Platform default `en`. */
  language: Language,
  /** Omitted → the platform generates a fallback question. */
  questions: Questions,
  /** Default false. */
  isDraft: z.boolean(),
  /** Default true. */
  isGraded: z.boolean(),
  /** Default false. */
  isOpenBook: z.boolean(),
  /** Default false. */
  isAllowRetake: z.boolean(),
  /** Default false. */
  hideEvaluationFromStudent: z.boolean(),
  /** Default false. */
  hideGradeFromStudent: z.boolean(),
  /** Strictness preset; platform default `Practice` (other values not stated). */
  evaluationDifficulty: NonEmptyText(100),
  /** Platform default `ai-rubric`. */
  evaluationStrategy: EvaluationStrategy,
  criteria: Criteria,
  /** Custom score bands; the reference does not state their shape. */
  scoringLevels: PassThroughValue,
  /** The descriptor matrix for `ai-rubric`; the reference does not state its shape. */
  evaluationRubricDescriptors: PassThroughValue,
  /** Model answers by question id; the value type is not stated. */
  modelAnswers: requestObject({}),
};

type Optionals<T extends Record<string, z.ZodType>> = { [K in keyof T]: z.ZodOptional<T[K]> };
function allOptional<T extends Record<string, z.ZodType>>(shape: T): Optionals<T> {
  return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as Optionals<T>;
}

export const OralAssessmentCreate = requestObject({
  name: NonEmptyText(200),
  classId: RecordId,
  ...allOptional(optionalFields),
  duration: Seconds.default(600),
  examType: ExamType.default("Generic"),
});
export type OralAssessmentCreateInput = z.input<typeof OralAssessmentCreate>;

/** The fields to change (sent as given: partial update; no defaults); at least one. */
export const OralAssessmentUpdate = requestObject({ name: NonEmptyText(200).optional(), classId: RecordId.optional(), ...allOptional(optionalFields) })
  .refine(...atLeastOneField);
export type OralAssessmentUpdateInput = z.input<typeof OralAssessmentUpdate>;

/** Filter of `GET /oral-assessments` and `GET /roleplay`. */
export const ListFilter = z.strictObject({ classId: RecordId.optional() });
export type ListFilter = z.input<typeof ListFilter>;

export const OralAssessment = z.looseObject({
  _id: z.string().min(1),
  name: z.string(),
  classId: z.string().optional(),
  duration: z.number().optional(),
  examType: z.string().optional(),
  questions: z.array(z.looseObject({ id: z.string(), text: z.string() })).optional(),
});
export type OralAssessment = z.infer<typeof OralAssessment>;
