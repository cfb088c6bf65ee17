/**
 * The OpenAPI 3.1 document of the router's routes, generated from the shared zod schemas
 * (the single source of truth), so the document cannot drift from what the router
 * validates. Pure: no Express, no I/O; the router serves the result as `GET /openapi.json`.
 * The schemas themselves are in `openapi-components.ts`; this file lays out the paths.
 */
import { buildComponents, problem, type JsonSchema } from "./openapi-components.js";

export interface OpenApiDocumentOptions {
  /**
   * Where the router is mounted, as the `servers[0].url` the paths are relative to.
   * Default `"/oral"` (the mount point the README uses).
   */
  serverUrl?: string;
  /** `info.version`. Default: this package's version line, `0.1.0`. */
  version?: string;
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
