/**
 * The platform's data shapes, as zod schemas: the single source of truth. The client
 * validates outgoing bodies and incoming responses with them, the router validates
 * instructor input with them, the emulator validates what it receives with them, and the
 * OpenAPI document is generated from them.
 *
 * Objects are "loose": fields we do not know pass through untouched, because the platform
 * accepts many optional fields (e.g. on assessments) that this package does not model.
 * Request schemas (`requestObject`) bound those fields' depth and size (pass-through.ts).
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { PassThroughValue } from "./pass-through.js";

// ---------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------

// C0 and C1 control characters (and DEL). They have no business in an id, and in a path
// segment they are a classic request-splitting vector.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A platform record id (`_id`) used in a path. Rejected locally when empty, too long,
 * holding control characters, or a dot segment (`.`/`..`), which a URL parser would
 * resolve into another path.
 */
export const RecordId = z
  .string()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .refine((s) => !CONTROL_CHARS.test(s), "must not contain control characters")
  .refine((s) => s !== "." && s !== "..", "must not be a dot segment");

/** A loose object whose unknown fields are bounded in depth and size: every request body. */
const requestObject = <Shape extends z.ZodRawShape>(shape: Shape) => z.object(shape).catchall(PassThroughValue);

const NonEmptyText = (max: number) => z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A point in time: a `Date`, an ISO date (`2026-09-01`, read as UTC midnight) or an ISO
 * date-time with a zone (`Z` or an offset). Always sent as ISO 8601 UTC with
 * milliseconds, as the platform expects. A date-time without a zone is refused rather
 * than guessed: it would mean different instants on different servers.
 */
/** The date part names a day that exists (no 30 February), and the time part a real time. */
function realCalendarDate(text: string): boolean {
  const [, y, m, d, hh = "0", mm = "0", ss = "0"] = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/i.exec(text) ?? [];
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && Number(hh) <= 23 && Number(mm) <= 59 && Number(ss) <= 59;
}

export const IsoDateTime = z.union([z.date(), z.string()]).transform((value, ctx) => {
  if (typeof value === "string" && !ISO_DATE.test(value) && !ISO_DATE_TIME.test(value)) {
    ctx.addIssue({
      code: "custom",
      message: "must be an ISO 8601 date (2026-09-01) or date-time with a zone (2026-09-01T09:00:00Z)",
    });
    return z.NEVER;
  }
  const date = value instanceof Date ? value : new Date(value);
  // `new Date` rolls 2026-02-30 over to March 2 instead of refusing it.
  if (Number.isNaN(date.getTime()) || (typeof value === "string" && !realCalendarDate(value))) {
    ctx.addIssue({ code: "custom", message: "is not a valid date" });
    return z.NEVER;
  }
  return date.toISOString();
});

export const ClassMode = z.enum(["in-person", "online", "hybrid"]);
export const ExamType = z.enum(["Generic", "Personalized", "Hybrid"]);

/** `meta` of the vendor's envelope. */
export const Meta = z.looseObject({ requestId: z.string().optional() });
export type Meta = z.infer<typeof Meta>;

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

export const CourseCreate = requestObject({
  name: NonEmptyText(200),
  level: NonEmptyText(100).default("undergraduate"),
});
export type CourseCreateInput = z.input<typeof CourseCreate>;
export type CourseCreateBody = z.output<typeof CourseCreate>;

export const CourseUpdate = requestObject({
  name: NonEmptyText(200).optional(),
  level: NonEmptyText(100).optional(),
})
  .refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });
export type CourseUpdateInput = z.input<typeof CourseUpdate>;
export type CourseUpdateBody = z.output<typeof CourseUpdate>;

export const ClassCreate = requestObject({
  name: NonEmptyText(200),
  classMode: ClassMode.default("online"),
  startDate: IsoDateTime,
  endDate: IsoDateTime,
})
  .superRefine((body, ctx) => {
    if (typeof body.startDate === "string" && typeof body.endDate === "string" && body.endDate < body.startDate) {
      ctx.addIssue({ code: "custom", path: ["endDate"], message: "must not be before startDate" });
    }
  });
export type ClassCreateInput = z.input<typeof ClassCreate>;
export type ClassCreateBody = z.output<typeof ClassCreate>;

/** A question; its `id` is generated when missing, so callers may send text only. */
export const Question = requestObject({
  id: z.string().trim().min(1).max(100).optional(),
  text: NonEmptyText(4000),
})
  .transform((q) => ({ ...q, id: q.id ?? `q_${randomUUID()}` }));
export type QuestionInput = z.input<typeof Question>;

export const OralAssessmentCreate = requestObject({
  name: NonEmptyText(200),
  classId: RecordId,
  /** Seconds. */
  duration: z.number().int("must be a whole number of seconds").positive("must be positive").max(86_400).default(600),
  examType: ExamType.default("Generic"),
  questions: z.array(Question).max(200).default([]),
})
  .superRefine((body, ctx) => {
    if (body.examType === "Generic" && body.questions.length === 0) {
      ctx.addIssue({ code: "custom", path: ["questions"], message: "a Generic exam needs at least one question" });
    }
  });
export type OralAssessmentCreateInput = z.input<typeof OralAssessmentCreate>;
export type OralAssessmentCreateBody = z.output<typeof OralAssessmentCreate>;

export const SignInTokenRequest = requestObject({
  email: z.email("must be an e-mail address"),
  firstName: NonEmptyText(100),
  lastName: NonEmptyText(100),
  orgInternalId: NonEmptyText(200),
  classId: RecordId,
  courseId: RecordId.optional(),
});
export type SignInTokenRequestInput = z.input<typeof SignInTokenRequest>;
export type SignInTokenRequestBody = z.output<typeof SignInTokenRequest>;

// ---------------------------------------------------------------------------------------
// Responses (records). Only what we rely on is required; everything else is kept.
// ---------------------------------------------------------------------------------------

export const Course = z.looseObject({
  _id: z.string().min(1),
  name: z.string(),
  level: z.string().optional(),
});
export type Course = z.infer<typeof Course>;

export const Class = z.looseObject({
  _id: z.string().min(1),
  name: z.string(),
  courseId: z.string().optional(),
  classMode: z.string().optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
});
export type Class = z.infer<typeof Class>;

export const OralAssessment = z.looseObject({
  _id: z.string().min(1),
  name: z.string(),
  classId: z.string().optional(),
  duration: z.number().optional(),
  examType: z.string().optional(),
  questions: z.array(z.looseObject({ id: z.string(), text: z.string() })).optional(),
});
export type OralAssessment = z.infer<typeof OralAssessment>;

export const SignInToken = z.looseObject({
  token: z.string().min(1),
  userId: z.string().optional(),
  studentId: z.string().optional(),
  created: z.boolean().optional(),
});
export type SignInToken = z.infer<typeof SignInToken>;

/** The vendor's error body: `{ error: { code, message, field? }, meta: { requestId } }`. */
export const ErrorBody = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
  }),
  meta: Meta.optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

// ---------------------------------------------------------------------------------------
// The envelope
// ---------------------------------------------------------------------------------------

/** A success response as the vendor documents it. */
export function envelopeOf<T extends z.ZodType>(data: T) {
  return z.object({ data, meta: Meta.optional() });
}

/**
 * Splits a success body into data and meta. The vendor wraps records in
 * `{ data, meta }`, but bare records "appear in the wild": a body is an envelope when it
 * has `data` and nothing but `data` and `meta`.
 */
export function unwrapEnvelope(body: unknown): { data: unknown; meta: Meta | undefined } {
  if (body !== null && typeof body === "object" && !Array.isArray(body) && "data" in body) {
    const keys = Object.keys(body);
    if (keys.every((k) => k === "data" || k === "meta")) {
      const { data, meta } = body as { data: unknown; meta?: unknown };
      const parsedMeta = Meta.safeParse(meta);
      return { data, meta: parsedMeta.success ? parsedMeta.data : undefined };
    }
  }
  return { data: body, meta: undefined };
}

/** Flattens zod issues into `{ path, message }` pairs, the shape our errors expose. */
export function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}
