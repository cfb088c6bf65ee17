/**
 * The router's routes, as data: the one table the instructor router binds its handlers
 * to (by `operationId`), the OpenAPI document is built from, and the instructor prefix
 * list is derived from. Pure: no Express, no I/O.
 *
 * Paths are written the OpenAPI way (`/courses/{courseId}`); `expressPath` turns them
 * into Express patterns.
 */
export type RouteMethod = "get" | "post" | "put" | "delete";
export type RouteParam = "courseId" | "classId" | "examId" | "roleplayId";

/** Which feature serves the route; each feature binds only its own. */
export type RouteFeature = "instructor" | "prepare" | "launch" | "meta";

export interface RouteSpec {
  operationId: string;
  method: RouteMethod;
  path: string;
  feature: RouteFeature;
  summary: string;
  description?: string;
  tag: string;
  params?: RouteParam[];
  /** Component schema name of the JSON body, when there is one. */
  body?: string;
  /** The success status. */
  status: number;
  /** What the success carries: `{ data: <record> }` (`record`), `{ data: <record>[] }` (`list`), or nothing. */
  returns?: { kind: "record" | "list"; schema: string; description: string } | { kind: "none"; description: string };
  /** Every error status the route can answer with, in order. */
  errors: number[];
  /** Route-specific meaning of an error status, where the generic one would mislead. */
  errorDescriptions?: Partial<Record<number, string>>;
}

/** Errors of every instructor route: not signed in, not an instructor, unexpected. */
const GUARDED = [401, 403];
/** A body (400 invalid, 413 too large, 415 not JSON) and upstream failures (404, 502–504). */
const UPSTREAM = [502, 503, 504];

function errors(options: { invalid?: boolean; body?: boolean; notFound?: boolean; conflict?: boolean; upstream?: boolean }): number[] {
  return [
    ...(options.invalid || options.body ? [400] : []), ...GUARDED, ...(options.notFound ? [404] : []),
    ...(options.conflict ? [409] : []), ...(options.body ? [413, 415] : []), 500, ...(options.upstream ? UPSTREAM : []),
  ];
}

/** What the list routes backed by a platform list say about where their records come from. */
const LIST_SYNC =
  "Read from the platform, so records made elsewhere (the platform's UI, another app) appear; cached for " +
  "`listCacheMs` (default 5 s), and refreshed at once by writes through this router. Every listed record is " +
  "recorded in the store, so a listed exam can be launched without `resolveClassId`; a record deleted " +
  "through this router stays hidden even while the platform still lists it.";

export const ROUTES: readonly RouteSpec[] = [
  {
    operationId: "createCourse", method: "post", path: "/courses", feature: "instructor", tag: "courses",
    summary: "Create a course on the platform", body: "CourseCreate", status: 201,
    returns: { kind: "record", schema: "Course", description: "The created course." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "listCourses", method: "get", path: "/courses", feature: "instructor", tag: "courses",
    summary: "The organization's courses, from the platform",
    description: "Cached for `listCacheMs` (default 5 s), as the vendor advises; writes through this router refresh it at once.",
    status: 200, returns: { kind: "list", schema: "Course", description: "The courses." },
    errors: errors({ notFound: true, upstream: true }),
  },
  {
    operationId: "getCourse", method: "get", path: "/courses/{courseId}", feature: "instructor", tag: "courses",
    summary: "One course, from the platform", params: ["courseId"], status: 200,
    returns: { kind: "record", schema: "Course", description: "The course." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "updateCourse", method: "put", path: "/courses/{courseId}", feature: "instructor", tag: "courses",
    summary: "Change a course's fields", params: ["courseId"], body: "CourseUpdate", status: 200,
    returns: { kind: "record", schema: "Course", description: "The updated course." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "deleteCourse", method: "delete", path: "/courses/{courseId}", feature: "instructor", tag: "courses",
    summary: "Delete a course",
    description: "Its classes and their assessments disappear from the lists, and their launch links answer 404.",
    params: ["courseId"], status: 204, returns: { kind: "none", description: "Deleted." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "createClass", method: "post", path: "/courses/{courseId}/classes", feature: "instructor", tag: "classes",
    summary: "Create a class in a course", params: ["courseId"], body: "ClassCreate", status: 201,
    returns: { kind: "record", schema: "Class", description: "The created class." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "listClasses", method: "get", path: "/courses/{courseId}/classes", feature: "instructor", tag: "classes",
    summary: "The course's classes, from the platform",
    description: LIST_SYNC,
    params: ["courseId"], status: 200, returns: { kind: "list", schema: "Class", description: "The classes." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "getClass", method: "get", path: "/courses/{courseId}/classes/{classId}", feature: "instructor", tag: "classes",
    summary: "One class, from the platform", params: ["courseId", "classId"], status: 200,
    returns: { kind: "record", schema: "Class", description: "The class." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "updateClass", method: "put", path: "/courses/{courseId}/classes/{classId}", feature: "instructor", tag: "classes",
    summary: "Change a class's fields (only those given)", params: ["courseId", "classId"], body: "ClassUpdate", status: 200,
    returns: { kind: "record", schema: "Class", description: "The updated class." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "deleteClass", method: "delete", path: "/courses/{courseId}/classes/{classId}", feature: "instructor", tag: "classes",
    summary: "Delete a class",
    description: "Its oral assessments and role-plays disappear from the lists, and their launch links answer 404.",
    params: ["courseId", "classId"], status: 204, returns: { kind: "none", description: "Deleted." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "createOralAssessment", method: "post", path: "/oral-assessments", feature: "instructor", tag: "oral assessments",
    summary: "Create an oral assessment in a class", body: "OralAssessmentCreate", status: 201,
    returns: { kind: "record", schema: "OralAssessment", description: "The created assessment. Its `_id` is the exam id of the launch link." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "getOralAssessment", method: "get", path: "/oral-assessments/{examId}", feature: "instructor", tag: "oral assessments",
    summary: "One oral assessment, from the platform", params: ["examId"], status: 200,
    returns: { kind: "record", schema: "OralAssessment", description: "The assessment." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "updateOralAssessment", method: "put", path: "/oral-assessments/{examId}", feature: "instructor", tag: "oral assessments",
    summary: "Change an oral assessment's fields (only those given)", params: ["examId"], body: "OralAssessmentUpdate", status: 200,
    returns: { kind: "record", schema: "OralAssessment", description: "The updated assessment." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "deleteOralAssessment", method: "delete", path: "/oral-assessments/{examId}", feature: "instructor", tag: "oral assessments",
    summary: "Delete an oral assessment", description: "Its launch link then answers 404.",
    params: ["examId"], status: 204, returns: { kind: "none", description: "Deleted." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "prepareExam", method: "post", path: "/oral-assessments/{examId}/prepare", feature: "prepare", tag: "oral assessments",
    summary: "Pre-warm sign-in tokens for an exam's roster before it starts",
    description:
      "Issues one token per student in the minutes before `startAt`, paced within half the rate budget at " +
      "normal priority (live launches go first), and refreshes unused ones until `keepAfterStartMs` after the " +
      "start. A launch then needs no platform call. Tokens stay in memory, are handed out once, only to the " +
      "student whose `orgInternalId` and e-mail match, and only with at least `minTokenLifeMs` of life left. " +
      "Posting again replaces the plan and keeps its usable tokens.",
    params: ["examId"], body: "PrepareRequest", status: 202,
    returns: { kind: "record", schema: "PrepareProgress", description: "The plan's progress." },
    errors: [...errors({ body: true }), 404],
    errorDescriptions: { 404: "An exam this router does not know (`not_found`)." },
  },
  {
    operationId: "getExamPreparation", method: "get", path: "/oral-assessments/{examId}/prepare", feature: "prepare", tag: "oral assessments",
    summary: "Progress of an exam's pre-warming", params: ["examId"], status: 200,
    returns: { kind: "record", schema: "PrepareProgress", description: "The plan's progress." },
    errors: [...errors({}), 404],
    errorDescriptions: { 404: "The exam was never prepared (`not_prepared`)." },
  },
  {
    operationId: "listOralAssessments", method: "get", path: "/classes/{classId}/oral-assessments", feature: "instructor", tag: "oral assessments",
    summary: "The class's oral assessments, from the platform",
    description: LIST_SYNC,
    params: ["classId"], status: 200, returns: { kind: "list", schema: "OralAssessment", description: "The assessments." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "createRoleplay", method: "post", path: "/roleplays", feature: "instructor", tag: "roleplays",
    summary: "Create a role-play in a class", body: "RoleplayCreate", status: 201,
    returns: { kind: "record", schema: "Roleplay", description: "The created role-play. Its `_id` is the id of the launch link `/launch/roleplay/{roleplayId}`." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "listRoleplays", method: "get", path: "/classes/{classId}/roleplays", feature: "instructor", tag: "roleplays",
    summary: "The class's role-plays, from the platform",
    description: LIST_SYNC,
    params: ["classId"], status: 200, returns: { kind: "list", schema: "Roleplay", description: "The role-plays." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "getRoleplay", method: "get", path: "/roleplays/{roleplayId}", feature: "instructor", tag: "roleplays",
    summary: "One role-play, from the platform", params: ["roleplayId"], status: 200,
    returns: { kind: "record", schema: "Roleplay", description: "The role-play." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "updateRoleplay", method: "put", path: "/roleplays/{roleplayId}", feature: "instructor", tag: "roleplays",
    summary: "Change a role-play's fields (only those given; scenario length limits apply)", params: ["roleplayId"], body: "RoleplayUpdate", status: 200,
    returns: { kind: "record", schema: "Roleplay", description: "The updated role-play." },
    errors: errors({ body: true, notFound: true, conflict: true, upstream: true }),
  },
  {
    operationId: "deleteRoleplay", method: "delete", path: "/roleplays/{roleplayId}", feature: "instructor", tag: "roleplays",
    summary: "Delete a role-play", description: "Its launch link then answers 404.",
    params: ["roleplayId"], status: 204, returns: { kind: "none", description: "Deleted." },
    errors: errors({ invalid: true, notFound: true, upstream: true }),
  },
  {
    operationId: "launchExam", method: "get", path: "/launch/{examId}", feature: "launch", tag: "launch",
    summary: "Send the signed-in student to the exam page (browser route)",
    description:
      "For a browser, not an API client: the answer is a redirect or a short HTML page, never JSON. " +
      "On a custom domain (`examHost`) a one-time sign-in token is requested from the platform and " +
      "passed in the `ticketParam` query parameter; otherwise the student goes to the platform's own exam page.",
    params: ["examId"], status: 303, errors: [400, 401, 403, 404, 409, 500, 502, 503, 504],
    errorDescriptions: {
      400: "Not an exam id, or the student's profile lacks a field the platform needs.",
      401: "Signed out and no `loginUrl` configured.",
      403: "`canLaunch` said no (e.g. not on the class's roster).",
      404: "An exam the store (and `resolveClassId`) does not know, or the platform no longer knows its class.",
      409: "The class is full.",
      500: "An unexpected error; it was logged.",
      502: "The platform failed or refused this server's key; the page offers a retry link.",
      503: "The platform is rate limiting; the page says when to retry.",
      504: "The platform did not answer in time; the page offers a retry link.",
    },
  },
  {
    operationId: "launchRoleplay", method: "get", path: "/launch/roleplay/{roleplayId}", feature: "launch", tag: "launch",
    summary: "Send the signed-in student to a role-play's exam page (browser route)",
    description:
      "As `launchExam` (same admission, rate budget, waiting page and pre-warmed tokens), for a role-play: " +
      "the exam page is `/exam/{roleplayId}/roleplay`.",
    params: ["roleplayId"], status: 303, errors: [400, 401, 403, 404, 409, 500, 502, 503, 504],
    errorDescriptions: {
      400: "Not a role-play id, or the student's profile lacks a field the platform needs.",
      401: "Signed out and no `loginUrl` configured.",
      403: "`canLaunch` said no (e.g. not on the class's roster).",
      404: "A role-play the store (and `resolveClassId`) does not know, or the platform no longer knows its class.",
      409: "The class is full.",
      500: "An unexpected error; it was logged.",
      502: "The platform failed or refused this server's key; the page offers a retry link.",
      503: "The platform is rate limiting; the page says when to retry.",
      504: "The platform did not answer in time; the page offers a retry link.",
    },
  },
  {
    operationId: "getOpenApiDocument", method: "get", path: "/openapi.json", feature: "meta", tag: "meta",
    summary: "This document", status: 200, errors: [],
  },
];

/** The route with this operationId; throws for an unknown one (a typo in a binding). */
export function routeOf(operationId: string): RouteSpec {
  const route = ROUTES.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route has operationId ${operationId}.`);
  return route;
}

/** `/courses/{courseId}` → `/courses/:courseId`. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/**
 * The first path segments of the instructor API (instructor and prepare routes): where
 * the router mounts the instructor guards and body parser.
 */
export const INSTRUCTOR_PREFIXES: readonly string[] = [
  ...new Set(ROUTES.filter((r) => r.feature === "instructor" || r.feature === "prepare").map((r) => `/${r.path.split("/")[1]}`)),
];
