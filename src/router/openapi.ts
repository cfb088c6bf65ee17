/**
 * The OpenAPI 3.1 document of the router's routes, generated from the shared zod schemas
 * (the single source of truth), so the document cannot drift from what the router
 * validates. Pure: no Express, no I/O; the router serves the result as `GET /openapi.json`.
 *
 * Request bodies are converted with `io: "input"` (what a caller may send: defaults
 * optional, transforms not applied yet), response records with `io: "output"`.
 * JSON Schema cannot say everything a zod refinement says; where a refinement matters to
 * a caller it is restated here by hand (and test/openapi.test.ts checks the two agree).
 */
import { z } from "zod";
import {
  Class, ClassCreate, Course, CourseCreate, CourseUpdate, OralAssessment, OralAssessmentCreate, RecordId,
} from "../platform/schemas.js";
import { PrepareRequest } from "./prepare-schema.js";

type JsonSchema = Record<string, unknown>;

export interface OpenApiDocumentOptions {
  /**
   * Where the router is mounted, as the `servers[0].url` the paths are relative to.
   * Default `"/oral"` (the mount point the README uses).
   */
  serverUrl?: string;
  /** `info.version`. Default: this package's version line, `0.1.0`. */
  version?: string;
}

/** The accepted shapes of a point in time, once sent as JSON (a `Date` cannot be). */
const DATE_OR_DATE_TIME: JsonSchema = {
  anyOf: [
    { type: "string", format: "date" },
    { type: "string", format: "date-time" },
  ],
  description:
    "An ISO 8601 date (`2026-09-01`, read as UTC midnight) or date-time with a zone " +
    "(`2026-09-01T09:00:00Z`). Sent upstream as ISO 8601 UTC with milliseconds.",
  examples: ["2026-09-01", "2026-09-01T09:00:00.000Z"],
};

function isDateUnion(schema: z.core.$ZodType): boolean {
  const def = schema._zod.def as { type: string; options?: z.core.$ZodType[] };
  return def.type === "union" && (def.options ?? []).some((o) => o._zod.def.type === "date");
}

/** zod → JSON Schema (2020-12, the dialect of OpenAPI 3.1), without the `$schema` key. */
function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    // `z.date()` has no JSON form; the union holding it is replaced just below.
    unrepresentable: "any",
    override: (ctx) => {
      const json = ctx.jsonSchema as JsonSchema;
      if (isDateUnion(ctx.zodSchema)) {
        for (const key of Object.keys(json)) delete json[key];
        Object.assign(json, structuredClone(DATE_OR_DATE_TIME));
      } else if (ctx.zodSchema === RecordId) {
        json.description = "A platform record `_id`: no control characters, and not `.` or `..`.";
      } else if (io === "input" && isTrimmedNonEmpty(ctx.zodSchema, json)) {
        json.pattern = "\\S";
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * Non-empty text is trimmed before its length is checked (`z.string().trim().min(1)`), so
 * whitespace alone is refused: JSON Schema says that with a pattern.
 */
function isTrimmedNonEmpty(schema: z.core.$ZodType, json: JsonSchema): boolean {
  const def = schema._zod.def as { type: string; checks?: { _zod: { def: { check?: string } } }[] };
  const trims = (def.checks ?? []).some((c) => c._zod.def.check === "overwrite");
  return def.type === "string" && trims && typeof json.minLength === "number" && json.minLength > 0;
}

function requestSchema(schema: z.ZodType, extra: JsonSchema = {}): JsonSchema {
  return { ...toSchema(schema, "input"), ...extra };
}

function buildComponents(): JsonSchema {
  const courseCreate = requestSchema(CourseCreate, { examples: [{ name: "Biology 101", level: "undergraduate" }] });
  const courseUpdate = requestSchema(CourseUpdate, {
    // zod: `.refine(body => Object.keys(body).length > 0)`.
    minProperties: 1,
    description: "The fields to change; at least one.",
    examples: [{ name: "Biology 101 (autumn)" }],
  });
  const classCreate = requestSchema(ClassCreate, {
    description: "A class of a course. `endDate` must not be before `startDate`.",
    examples: [{ name: "Group A", classMode: "online", startDate: "2026-09-01", endDate: "2026-12-20" }],
  });
  const assessmentCreate = requestSchema(OralAssessmentCreate, {
    description:
      "An oral assessment of a class. `duration` is in seconds. A `Generic` exam (the default) needs at " +
      "least one question; a question's `id` is generated when missing. Fields the platform accepts " +
      "beyond these (`examDescription`, `instructions`, `language`, `isDraft`, …) pass through untouched.",
    // zod: `.superRefine` — Generic (explicit or by default) needs a question.
    anyOf: [
      { type: "object", properties: { examType: { enum: ["Personalized", "Hybrid"] } }, required: ["examType"] },
      { type: "object", properties: { questions: { type: "array", minItems: 1 } }, required: ["questions"] },
    ],
    examples: [{ name: "Cell biology oral", classId: "cls_123", duration: 600, examType: "Generic", questions: [{ text: "Explain osmosis." }] }],
  });
  const prepareRequest = requestSchema(PrepareRequest, {
    description:
      "When the exam starts, and the students to pre-warm sign-in tokens for (at most `prewarm.maxRoster`, default " +
      "5 000). `roster` may be left out when the router has a `roster` option. `startAt` must not be over " +
      "(start + `prewarm.keepAfterStartMs`) nor more than 7 days ahead.",
    examples: [{ startAt: "2026-09-01T09:00:00Z", roster: [{ email: "ada@school.example", firstName: "Ada", lastName: "Lovelace", orgInternalId: "u-1815" }] }],
  });
  const count = (description: string) => ({ type: "integer", minimum: 0, description });
  const instant = { type: "string", format: "date-time" };
  return {
    schemas: {
      PrepareRequest: prepareRequest,
      PrepareProgress: {
        type: "object",
        description: "A pre-warming plan's progress. Never contains a token.",
        required: ["examId", "classId", "startAt", "issueFrom", "keepUntil", "state", "roster", "ready", "pending", "failed", "handedOut", "onDemand", "expired", "platformCalls", "failures"],
        properties: {
          examId: { type: "string" },
          classId: { type: "string" },
          startAt: instant,
          issueFrom: { ...instant, description: "When issuing begins (startAt − lead)." },
          keepUntil: { ...instant, description: "Until when unused tokens are refreshed (startAt + keepAfterStartMs)." },
          state: { enum: ["scheduled", "issuing", "ready", "finished"] },
          roster: count("Students in the plan (duplicates counted once)."),
          ready: count("Students holding a usable token now."),
          pending: count("Students whose token is not issued yet or is being refreshed."),
          failed: count("Students the platform refused; they launch on demand."),
          handedOut: count("Prepared tokens given to their students."),
          onDemand: count("Students who launched while no usable token was ready."),
          expired: count("Tokens that went stale unused after keepUntil."),
          platformCalls: count("Sign-in token requests the plan sent."),
          failures: {
            type: "array",
            items: { type: "object", required: ["orgInternalId", "code", "message"], properties: { orgInternalId: { type: "string" }, code: { type: "string" }, message: { type: "string" } } },
          },
        },
      },
      CourseCreate: courseCreate,
      CourseUpdate: courseUpdate,
      ClassCreate: classCreate,
      OralAssessmentCreate: assessmentCreate,
      Course: toSchema(Course, "output"),
      Class: toSchema(Class, "output"),
      OralAssessment: toSchema(OralAssessment, "output"),
      Meta: {
        type: "object",
        properties: { requestId: { type: "string", description: "The platform's request id, for support requests." } },
        additionalProperties: {},
      },
      Problem: {
        type: "object",
        description: "RFC 9457 problem details, plus a stable `code` and, for invalid input, one entry per field.",
        required: ["type", "title", "status", "detail", "code"],
        properties: {
          type: { type: "string", format: "uri-reference", examples: ["urn:express-oral-assessments:problem:validation_error"] },
          title: { type: "string" },
          status: { type: "integer", minimum: 400, maximum: 599 },
          detail: { type: "string" },
          code: {
            type: "string",
            description:
              "Stable and machine-readable: `validation_error`, `malformed_json`, `unauthenticated`, `forbidden`, " +
              "`cross_site_request`, `not_found`, `conflict`, `body_too_large`, `unsupported_media_type`, " +
              "`upstream_unauthorized`, `upstream_rate_limited`, `upstream_timeout`, `upstream_error`, " +
              "`not_prepared`, `internal_error`, or a code the platform sent.",
          },
          errors: {
            type: "array",
            description: "Invalid input: one entry per field. `path` is dotted (`questions.0.text`), `(body)` for the whole body.",
            items: {
              type: "object",
              required: ["path", "message"],
              properties: { path: { type: "string" }, message: { type: "string" } },
            },
          },
          requestId: { type: "string", description: "The platform's request id, when the failure came from the platform." },
        },
      },
    },
    parameters: {
      courseId: idParameter("courseId", "The course's platform `_id`."),
      classId: idParameter("classId", "The class's platform `_id`."),
      examId: {
        name: "examId",
        in: "path",
        required: true,
        description: "The oral assessment's platform `_id`.",
        schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" },
      },
    },
    responses: {
      Invalid: problem("Invalid input (`validation_error`, with `errors`), or a body that is not JSON (`malformed_json`)."),
      Unauthenticated: problem("No signed-in user (`unauthenticated`)."),
      Forbidden: problem("Not an instructor (`forbidden`), a cross-site browser request (`cross_site_request`), or refused by the platform."),
      NotFound: problem("The platform does not know this record (`not_found`)."),
      Conflict: problem("The platform reported a conflict."),
      TooLarge: problem("The body is larger than `bodyLimit` (`body_too_large`)."),
      UnsupportedMediaType: problem("The body is not `application/json` (`unsupported_media_type`)."),
      InternalError: problem("An unexpected error in the router (`internal_error`); it was logged."),
      BadGateway: problem("The platform failed, or refused this server's API key (`upstream_error`, `upstream_unauthorized`)."),
      ServiceUnavailable: problem("The platform is rate limiting this server (`upstream_rate_limited`); see `Retry-After`.", true),
      GatewayTimeout: problem("The platform did not answer in time (`upstream_timeout`)."),
    },
    securitySchemes: {
      session: {
        type: "apiKey",
        in: "cookie",
        name: "connect.sid",
        description:
          "The host application's session (e.g. passport with express-session). The cookie name is the host " +
          "application's; instructor routes also need `isInstructor(req)` to say yes.",
      },
    },
  };
}

function idParameter(name: string, description: string): JsonSchema {
  return {
    name,
    in: "path",
    required: true,
    description,
    schema: { type: "string", minLength: 1, maxLength: 200 },
  };
}

function problem(description: string, retryAfter = false): JsonSchema {
  return {
    description,
    ...(retryAfter ? { headers: { "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 1 } } } } : {}),
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  };
}

const ref = (name: string) => ({ $ref: `#/components/${name}` });

function jsonBody(schemaName: string): JsonSchema {
  return { required: true, content: { "application/json": { schema: ref(`schemas/${schemaName}`) } } };
}

function success(description: string, data: JsonSchema): JsonSchema {
  return {
    description,
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["data"],
          properties: { data, meta: ref("schemas/Meta") },
        },
      },
    },
  };
}

/** Errors every instructor route can answer with. */
function instructorErrors(options: { body?: boolean; id?: boolean; upstream?: boolean; conflict?: boolean }): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  if (options.body || options.id) out["400"] = ref("responses/Invalid");
  out["401"] = ref("responses/Unauthenticated");
  out["403"] = ref("responses/Forbidden");
  if (options.upstream) out["404"] = ref("responses/NotFound");
  if (options.conflict) out["409"] = ref("responses/Conflict");
  if (options.body) {
    out["413"] = ref("responses/TooLarge");
    out["415"] = ref("responses/UnsupportedMediaType");
  }
  out["500"] = ref("responses/InternalError");
  if (options.upstream) {
    out["502"] = ref("responses/BadGateway");
    out["503"] = ref("responses/ServiceUnavailable");
    out["504"] = ref("responses/GatewayTimeout");
  }
  return out;
}

function operation(fields: {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: string[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
}): JsonSchema {
  const { parameters, ...rest } = fields;
  return {
    ...rest,
    ...(parameters ? { parameters: parameters.map((p) => ref(`parameters/${p}`)) } : {}),
    security: [{ session: [] }],
  };
}

const htmlPage = (description: string, headers?: JsonSchema): JsonSchema => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "text/html": { schema: { type: "string" } } },
});

function buildPaths(): JsonSchema {
  const course = ref("schemas/Course");
  const cls = ref("schemas/Class");
  const assessment = ref("schemas/OralAssessment");
  return {
    "/courses": {
      post: operation({
        operationId: "createCourse",
        summary: "Create a course on the platform",
        tags: ["courses"],
        requestBody: jsonBody("CourseCreate"),
        responses: { "201": success("The created course.", course), ...instructorErrors({ body: true, upstream: true, conflict: true }) },
      }),
      get: operation({
        operationId: "listCourses",
        summary: "The organization's courses, from the platform",
        description: "Cached for `listCacheMs` (default 5 s), as the vendor advises; writes through this router refresh it at once.",
        tags: ["courses"],
        responses: { "200": success("The courses.", { type: "array", items: course }), ...instructorErrors({ upstream: true }) },
      }),
    },
    "/courses/{courseId}": {
      get: operation({
        operationId: "getCourse",
        summary: "One course, from the platform",
        tags: ["courses"],
        parameters: ["courseId"],
        responses: { "200": success("The course.", course), ...instructorErrors({ id: true, upstream: true }) },
      }),
      put: operation({
        operationId: "updateCourse",
        summary: "Change a course's fields",
        tags: ["courses"],
        parameters: ["courseId"],
        requestBody: jsonBody("CourseUpdate"),
        responses: { "200": success("The updated course.", course), ...instructorErrors({ body: true, id: true, upstream: true, conflict: true }) },
      }),
      delete: operation({
        operationId: "deleteCourse",
        summary: "Delete a course",
        description: "Its classes and their assessments disappear from the lists, and their launch links answer 404.",
        tags: ["courses"],
        parameters: ["courseId"],
        responses: { "204": { description: "Deleted." }, ...instructorErrors({ id: true, upstream: true }) },
      }),
    },
    "/courses/{courseId}/classes": {
      post: operation({
        operationId: "createClass",
        summary: "Create a class in a course",
        tags: ["classes"],
        parameters: ["courseId"],
        requestBody: jsonBody("ClassCreate"),
        responses: { "201": success("The created class.", cls), ...instructorErrors({ body: true, id: true, upstream: true, conflict: true }) },
      }),
      get: operation({
        operationId: "listClasses",
        summary: "The course's classes created through this router",
        description: "Read from the store, oldest first (the platform has no list endpoint for classes); a course the store does not know gives an empty list.",
        tags: ["classes"],
        parameters: ["courseId"],
        responses: { "200": success("The classes.", { type: "array", items: cls }), ...instructorErrors({ id: true }) },
      }),
    },
    "/oral-assessments": {
      post: operation({
        operationId: "createOralAssessment",
        summary: "Create an oral assessment in a class",
        tags: ["oral assessments"],
        requestBody: jsonBody("OralAssessmentCreate"),
        responses: { "201": success("The created assessment. Its `_id` is the exam id of the launch link.", assessment), ...instructorErrors({ body: true, upstream: true, conflict: true }) },
      }),
    },
    "/oral-assessments/{examId}/prepare": {
      post: operation({
        operationId: "prepareExam",
        summary: "Pre-warm sign-in tokens for an exam's roster before it starts",
        description:
          "Issues one token per student in the minutes before `startAt`, paced within half the rate budget at " +
          "normal priority (live launches go first), and refreshes unused ones until `keepAfterStartMs` after the " +
          "start. A launch then needs no platform call. Tokens stay in memory, are handed out once, only to the " +
          "student whose `orgInternalId` and e-mail match, and only with at least `minTokenLifeMs` of life left. " +
          "Posting again replaces the plan and keeps its usable tokens.",
        tags: ["oral assessments"],
        parameters: ["examId"],
        requestBody: jsonBody("PrepareRequest"),
        responses: {
          "202": success("The plan's progress.", ref("schemas/PrepareProgress")),
          ...instructorErrors({ body: true }),
          "404": problem("An exam this router does not know (`not_found`)."),
        },
      }),
      get: operation({
        operationId: "getExamPreparation",
        summary: "Progress of an exam's pre-warming",
        tags: ["oral assessments"],
        parameters: ["examId"],
        responses: {
          "200": success("The plan's progress.", ref("schemas/PrepareProgress")),
          ...instructorErrors({}),
          "404": problem("The exam was never prepared (`not_prepared`)."),
        },
      }),
    },
    "/classes/{classId}/oral-assessments": {
      get: operation({
        operationId: "listOralAssessments",
        summary: "The class's oral assessments created through this router",
        description: "Read from the store, oldest first (the platform has no list endpoint for assessments); a class the store does not know gives an empty list.",
        tags: ["oral assessments"],
        parameters: ["classId"],
        responses: { "200": success("The assessments.", { type: "array", items: assessment }), ...instructorErrors({ id: true }) },
      }),
    },
    "/launch/{examId}": {
      get: {
        operationId: "launchExam",
        summary: "Send the signed-in student to the exam page (browser route)",
        description:
          "For a browser, not an API client: the answer is a redirect or a short HTML page, never JSON. " +
          "On a custom domain (`examHost`) a one-time sign-in token is requested from the platform and " +
          "passed in the `ticketParam` query parameter; otherwise the student goes to the platform's own exam page.",
        tags: ["launch"],
        parameters: [ref("parameters/examId")],
        security: [{ session: [] }],
        responses: {
          "303": {
            description:
              "To `{examHost}/exam/{examId}?{ticketParam}={token}` (custom domain) or `{platform host}/exam/{examId}`; " +
              "or, signed out with `loginUrl` set, to `{loginUrl}?returnTo={this path}`.",
            headers: {
              Location: { schema: { type: "string", format: "uri-reference" } },
              "Cache-Control": { schema: { type: "string", const: "no-store" } },
              "Referrer-Policy": { schema: { type: "string", const: "no-referrer" } },
            },
          },
          "400": htmlPage("Not an exam id, or the student's profile lacks a field the platform needs."),
          "401": htmlPage("Signed out and no `loginUrl` configured."),
          "403": htmlPage("`canLaunch` said no (e.g. not on the class's roster)."),
          "404": htmlPage("An exam the store (and `resolveClassId`) does not know, or the platform no longer knows its class."),
          "409": htmlPage("The class is full."),
          "500": htmlPage("An unexpected error; it was logged."),
          "502": htmlPage("The platform failed or refused this server's key; the page offers a retry link."),
          "503": htmlPage("The platform is rate limiting; the page says when to retry.", {
            "Retry-After": { schema: { type: "integer", minimum: 1 } },
          }),
          "504": htmlPage("The platform did not answer in time; the page offers a retry link."),
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        summary: "This document",
        tags: ["meta"],
        security: [],
        responses: { "200": { description: "The OpenAPI 3.1 document.", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the router mounted at `serverUrl`. A fresh object per call. */
export function buildOpenApiDocument(options: OpenApiDocumentOptions = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "express-oral-assessments",
      version: options.version ?? "0.1.0",
      description:
        "The instructor API (JSON in, JSON or RFC 9457 problem+json out) and the student launch route of the " +
        "`oralAssessments()` Express router. Every path is relative to where the router is mounted. " +
        "State-changing calls must be `application/json` and same-origin (or from `trustedOrigins`).",
    },
    servers: [{ url: options.serverUrl ?? "/oral", description: "Where the host application mounted the router." }],
    tags: [
      { name: "courses" }, { name: "classes" }, { name: "oral assessments" }, { name: "launch" }, { name: "meta" },
    ],
    paths: buildPaths(),
    components: buildComponents(),
  };
}
