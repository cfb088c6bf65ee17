/**
 * The platform's resources: one handler per method and path, validated with the same zod
 * schemas the client and router use (so the emulator cannot drift from them).
 *
 * Handlers return `{ status, data }` or throw `ApiFailure`; `api.ts` does everything
 * around them (auth, rate limits, faults, envelopes).
 */
import type { z } from "zod";
import {
  ClassCreate, CourseCreate, CourseUpdate, OralAssessmentCreate, SignInTokenRequest,
} from "../platform/schemas.js";
import type { EmulatorContext } from "./context.js";
import type { BodyResult } from "./http.js";
import type { JsonRecord, Owned } from "./state.js";

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface ApiCall {
  ctx: EmulatorContext;
  /** Organization of the key that made the call. */
  org: string;
  /** Percent-decoded path parameters, in order. */
  params: string[];
  body: BodyResult;
}

/** `data: undefined` → 204 with no body. */
export interface Outcome {
  status: number;
  data?: unknown;
}

type Handler = (call: ApiCall) => Outcome | Promise<Outcome>;
export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** Ids echoed in messages are quoted and cut short: they come straight from the URL. */
const quote = (id: string) => JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);

function validate<S extends z.ZodType>(schema: S, body: BodyResult): z.output<S> {
  if (body.kind === "invalid") throw new ApiFailure(400, "validation_error", "The request body is not valid JSON.");
  const parsed = schema.safeParse(body.kind === "json" ? body.value : undefined);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  const message = issue?.message ?? "is invalid";
  throw new ApiFailure(400, "validation_error", field ? `${field}: ${message}` : `Request body: ${message}`, field || undefined);
}

/** The record, or 404 when it does not exist and 403 when another organization owns it. */
function ownRecord(found: Owned | undefined, org: string, what: string, id: string, field?: string): JsonRecord {
  if (!found) throw new ApiFailure(404, "not_found", `${what} ${quote(id)} was not found.`, field);
  if (found.org !== org) throw new ApiFailure(403, "forbidden", `${what} ${quote(id)} belongs to another organization.`, field);
  return found.record;
}

const param = (call: ApiCall, i = 0): string => call.params[i] ?? "";

const createCourse: Handler = ({ ctx, org, body }) =>
  ({ status: 201, data: ctx.state.createCourse(org, validate(CourseCreate, body)) });

const listCourses: Handler = ({ ctx, org }) => ({ status: 200, data: ctx.state.listCourses(org) });

const getCourse: Handler = (call) =>
  ({ status: 200, data: ownRecord(call.ctx.state.course(param(call)), call.org, "Course", param(call)) });

const updateCourse: Handler = (call) => {
  ownRecord(call.ctx.state.course(param(call)), call.org, "Course", param(call));
  const changes = validate(CourseUpdate, call.body);
  return { status: 200, data: call.ctx.state.updateCourse(param(call), changes) };
};

const deleteCourse: Handler = (call) => {
  ownRecord(call.ctx.state.course(param(call)), call.org, "Course", param(call));
  call.ctx.state.deleteCourse(param(call));
  return { status: 204 };
};

// The course in the path is checked before the body: an unknown course is 404 whatever was sent.
const createClass: Handler = (call) => {
  ownRecord(call.ctx.state.course(param(call)), call.org, "Course", param(call));
  const body = validate(ClassCreate, call.body);
  return { status: 201, data: call.ctx.state.createClass(call.org, param(call), body) };
};

const listClasses: Handler = (call) => {
  ownRecord(call.ctx.state.course(param(call)), call.org, "Course", param(call));
  return { status: 200, data: call.ctx.state.listClasses(param(call)) };
};

const createAssessment: Handler = ({ ctx, org, body }) => {
  const input = validate(OralAssessmentCreate, body);
  const classRecord = ownRecord(ctx.state.class(input.classId), org, "Class", input.classId, "classId");
  return { status: 201, data: ctx.state.createAssessment(org, classRecord, input) };
};

const getAssessment: Handler = (call) =>
  ({ status: 200, data: ownRecord(call.ctx.state.assessment(param(call)), call.org, "Oral assessment", param(call)) });

const signInToken: Handler = async ({ ctx, org, body }) => {
  const input = validate(SignInTokenRequest, body);
  const classRecord = ownRecord(ctx.state.class(input.classId), org, "Class", input.classId, "classId");
  if (input.courseId !== undefined && input.courseId !== classRecord.courseId) {
    throw new ApiFailure(400, "validation_error", "courseId: is not the course of this class", "courseId");
  }
  const enrolled = ctx.state.enrol(org, input.classId, input, ctx.options.classCapacity);
  if (enrolled === "full") {
    throw new ApiFailure(409, "conflict", `Class ${quote(input.classId)} is full (${ctx.options.classCapacity} students).`, "classId");
  }
  const { student, created } = enrolled;
  const token = await ctx.tickets.issue({
    studentId: student._id, classId: input.classId, name: `${student.firstName} ${student.lastName}`, email: student.email,
  });
  return { status: 200, data: { token, userId: student.userId, studentId: student._id, created } };
};

/** Path patterns after `/api/v1/<env>`; `:` marks a parameter. */
const ROUTES: { pattern: string[]; handlers: Partial<Record<Method, Handler>> }[] = [
  { pattern: ["courses"], handlers: { POST: createCourse, GET: listCourses } },
  { pattern: ["courses", ":"], handlers: { GET: getCourse, PUT: updateCourse, DELETE: deleteCourse } },
  { pattern: ["courses", ":", "classes"], handlers: { POST: createClass, GET: listClasses } },
  { pattern: ["oral-assessments"], handlers: { POST: createAssessment } },
  { pattern: ["oral-assessments", ":"], handlers: { GET: getAssessment } },
  { pattern: ["students", "sign-in-token"], handlers: { POST: signInToken } },
];

export type RouteMatch =
  | { kind: "found"; handler: Handler; params: string[] }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

/** Finds the handler for decoded path segments. Empty segments never match a parameter. */
export function matchRoute(method: string, segments: string[]): RouteMatch {
  for (const { pattern, handlers } of ROUTES) {
    if (pattern.length !== segments.length) continue;
    const params: string[] = [];
    const fits = pattern.every((part, i) => {
      const seg = segments[i]!;
      if (part !== ":") return part === seg;
      params.push(seg);
      return seg.length > 0;
    });
    if (!fits) continue;
    const handler = handlers[method as Method];
    return handler ? { kind: "found", handler, params } : { kind: "method_not_allowed", allow: Object.keys(handlers) };
  }
  return { kind: "not_found" };
}
