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
import { z } from "zod";
import { Meta, NonEmptyText, RecordId, requestObject } from "./schemas/primitives.js";
import { OralAssessmentCreate } from "./schemas/oral-assessments.js";

// The building blocks and the per-resource schemas live in ./schemas/; this module is
// their single public face (exported as the `schemas` namespace).
export * from "./schemas/primitives.js";
export * from "./schemas/classes.js";
export * from "./schemas/oral-assessments.js";
export * from "./schemas/roleplays.js";
export { OralAssessmentCreate };

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

export const CourseCreate = requestObject({
  name: NonEmptyText(200),
  level: NonEmptyText(100).default("undergraduate"),
});
export type CourseCreateInput = z.input<typeof CourseCreate>;

export const CourseUpdate = requestObject({
  name: NonEmptyText(200).optional(),
  level: NonEmptyText(100).optional(),
})
  .refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });
export type CourseUpdateInput = z.input<typeof CourseUpdate>;

// Classes, oral assessments and role-plays: see ./schemas/.
export type OralAssessmentCreateInput = z.input<typeof OralAssessmentCreate>;

/**
 * The student a sign-in token is for: the one definition of a student's identity, used by
 * the router's options, the launch, the prepare roster and the emulator. A plain
 * `z.object`, not a loose one: extra fields of what it is parsed from (passport's
 * `req.user`) are stripped, so only these documented fields ever reach the platform.
 */
export const StudentIdentity = z.object({
  email: z.email("must be an e-mail address"),
  firstName: NonEmptyText(100),
  lastName: NonEmptyText(100),
  orgInternalId: NonEmptyText(200),
});
export type StudentIdentity = z.infer<typeof StudentIdentity>;

export const SignInTokenRequest = requestObject({
  ...StudentIdentity.shape,
  classId: RecordId,
  courseId: RecordId.optional(),
});
export type SignInTokenRequestInput = z.input<typeof SignInTokenRequest>;

// ---------------------------------------------------------------------------------------
// Responses (records). Only what we rely on is required; everything else is kept.
// ---------------------------------------------------------------------------------------

export const Course = z.looseObject({
  _id: z.string().min(1),
  name: z.string(),
  level: z.string().optional(),
});
export type Course = z.infer<typeof Course>;

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
