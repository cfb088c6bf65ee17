/**
 * The router's routes, as data: the one table the router binds its handlers to (by
 * `operationId`, checked by the compiler), the OpenAPI document is built from, and the
 * instructor prefix list is derived from. Pure: no Express, no I/O.
 *
 * A route names the platform endpoint behind it (`upstream`), which gives its body and
 * answer schemas (`platform/endpoints.ts`); its error statuses and the headers of each
 * answer follow from what it is (`answers.ts`): a guarded instructor route, a POST that
 * takes an `Idempotency-Key`, a browser route. Paths are written the OpenAPI way
 * (`/courses/{courseId}`); `expressPath` turns them into Express patterns.
 */
import type { RouteFeature, RouteSpec } from "./route-spec.js";
import { scoresSpec } from "./scores-routes.js";

export type { RouteFeature, RouteMethod, RouteParam, RouteSpec } from "./route-spec.js";

/** What the list routes backed by a platform list say about where their records come from. */
const LIST_SYNC =
  "Read from the platform, so records made elsewhere (the platform's UI, another app) appear; cached for " +
  "`listCacheMs` (default 5 s), and refreshed at once by writes through this router. Every listed record is " +
  "recorded in the store, so a listed exam can be launched without `resolveClassId`; a record deleted " +
  "through this router stays hidden even while the platform still lists it.";

/** What the launch record routes say about their records. */
const LAUNCHES =
  "Every launch outcome of an identified student (signed in and admitted far enough to be known): redirected, " +
  "the waiting page, refused by `canLaunch`, over the fair share, a platform failure, with the status the browser got, " +
  "how the token was served (`prepared`, `on_demand`, `coalesced`, `platform_host`, or `none`) and how the student came " +
  "(`link` or `lti`). Never a token. Newest first; `?cursor=`, `?student=` (an `orgInternalId` or e-mail), `?outcome=`, " +
  "`?limit=` (1–1000, default 100). With `Accept: text/csv`: every matching record, one header row. Kept for " +
  "`launchRecord.retentionDays` (default 180).";
const CAPPED_EXPORT = "An answer beyond the router's `launchExports` caps (per user, per organization, per router: `too_many_exports`, naming the cap), nothing read; see `Retry-After`.";

/** The launch routes' pages, by status. */
const LAUNCH_PAGES = {
  202: "The self-refreshing waiting page (`Refresh` header): the student's sign-in call is queued or slow; the page follows it to the exam.",
  400: "Not an exam id, or the student's profile lacks a field the platform needs (named on the page).",
  401: "Signed out and no `loginUrl` configured.",
  403: "`canLaunch` said no (e.g. not on the class's roster), or a waiting page's link opened by another account.",
  404: "An exam the store (and `resolveClassId`) does not know, or the platform no longer knows its class.",
  409: "The class is full (the platform's answer, shown again without a call during the student's backoff).",
  429: "The student's fair share of sign-in calls (`launchLimit`) is used up; `Retry-After` says when to try again.",
  500: "An unexpected error; it was logged.",
  502: "The platform failed or refused this server's key; the page offers a retry link (shown again without a call during the student's backoff).",
  503: "The platform is rate limiting, the wait exceeded `launchWaitMs`, or the circuit breaker is open (no call was made); " +
    "`Retry-After` says when to try again. A prefetch (`Sec-Purpose: prefetch`, `Purpose: prefetch`) is answered 503 with no call and no `Retry-After`.",
  504: "The platform did not answer in time; the page offers a retry link.",
} as const;

export const ROUTES = [
  {
    operationId: "createCourse", upstream: "createCourse", method: "post", path: "/courses", feature: "instructor", tag: "courses",
    summary: "Create a course on the platform", status: 201,
    returns: { kind: "record", description: "The created course." },
    notFound: true, conflict: true,
  },
  {
    operationId: "listCourses", upstream: "listCourses", method: "get", path: "/courses", feature: "instructor", tag: "courses",
    summary: "The organization's courses, from the platform",
    description: "Cached for `listCacheMs` (default 5 s), as the vendor advises; writes through this router refresh it at once.",
    status: 200, returns: { kind: "list", description: "The courses." },
    notFound: true,
  },
  {
    operationId: "getCourse", upstream: "retrieveCourse", method: "get", path: "/courses/{courseId}", feature: "instructor", tag: "courses",
    summary: "One course, from the platform", params: ["courseId"], status: 200,
    returns: { kind: "record", description: "The course." },
    notFound: true,
  },
  {
    operationId: "updateCourse", upstream: "updateCourse", method: "put", path: "/courses/{courseId}", feature: "instructor", tag: "courses",
    summary: "Change a course's fields", params: ["courseId"], status: 200,
    returns: { kind: "record", description: "The updated course." },
    notFound: true, conflict: true,
  },
  {
    operationId: "deleteCourse", upstream: "deleteCourse", method: "delete", path: "/courses/{courseId}", feature: "instructor", tag: "courses",
    summary: "Delete a course",
    description: "Its classes and their assessments disappear from the lists, and their launch links answer 404.",
    params: ["courseId"], status: 204, returns: { kind: "none", description: "Deleted." },
    notFound: true,
  },
  {
    operationId: "createClass", upstream: "createClass", method: "post", path: "/courses/{courseId}/classes", feature: "instructor", tag: "classes",
    summary: "Create a class in a course", params: ["courseId"], status: 201,
    returns: { kind: "record", description: "The created class." },
    notFound: true, conflict: true,
  },
  {
    operationId: "listClasses", upstream: "listClasses", method: "get", path: "/courses/{courseId}/classes", feature: "instructor", tag: "classes",
    summary: "The course's classes, from the platform",
    description: LIST_SYNC,
    params: ["courseId"], status: 200, returns: { kind: "list", description: "The classes." },
    notFound: true,
  },
  {
    operationId: "getClass", upstream: "retrieveClass", method: "get", path: "/courses/{courseId}/classes/{classId}", feature: "instructor", tag: "classes",
    summary: "One class, from the platform", params: ["courseId", "classId"], status: 200,
    returns: { kind: "record", description: "The class." },
    notFound: true,
  },
  {
    operationId: "updateClass", upstream: "updateClass", method: "put", path: "/courses/{courseId}/classes/{classId}", feature: "instructor", tag: "classes",
    summary: "Change a class's fields (only those given)", params: ["courseId", "classId"], status: 200,
    returns: { kind: "record", description: "The updated class." },
    notFound: true, conflict: true,
  },
  {
    operationId: "deleteClass", upstream: "deleteClass", method: "delete", path: "/courses/{courseId}/classes/{classId}", feature: "instructor", tag: "classes",
    summary: "Delete a class",
    description: "Its oral assessments and role-plays disappear from the lists, and their launch links answer 404.",
    params: ["courseId", "classId"], status: 204, returns: { kind: "none", description: "Deleted." },
    notFound: true,
  },
  {
    operationId: "createOralAssessment", upstream: "createOralAssessment", method: "post", path: "/oral-assessments", feature: "instructor", tag: "oral assessments",
    summary: "Create an oral assessment in a class", status: 201,
    returns: { kind: "record", description: "The created assessment. Its `_id` is the exam id of the launch link." },
    notFound: true, conflict: true,
  },
  {
    operationId: "getOralAssessment", upstream: "retrieveOralAssessment", method: "get", path: "/oral-assessments/{examId}", feature: "instructor", tag: "oral assessments",
    summary: "One oral assessment, from the platform", params: ["examId"], status: 200,
    returns: { kind: "record", description: "The assessment." },
    notFound: true,
  },
  {
    operationId: "updateOralAssessment", upstream: "updateOralAssessment", method: "put", path: "/oral-assessments/{examId}", feature: "instructor", tag: "oral assessments",
    summary: "Change an oral assessment's fields (only those given)", params: ["examId"], status: 200,
    returns: { kind: "record", description: "The updated assessment." },
    notFound: true, conflict: true,
  },
  {
    operationId: "deleteOralAssessment", upstream: "deleteOralAssessment", method: "delete", path: "/oral-assessments/{examId}", feature: "instructor", tag: "oral assessments",
    summary: "Delete an oral assessment", description: "Its launch link then answers 404.",
    params: ["examId"], status: 204, returns: { kind: "none", description: "Deleted." },
    notFound: true,
  },
  {
    operationId: "prepareExam", method: "post", path: "/oral-assessments/{examId}/prepare", feature: "prepare", tag: "oral assessments",
    summary: "Pre-warm sign-in tokens for an exam's roster before it starts",
    description:
      "Issues one token per student in the minutes before `startAt`, paced within half the rate budget at " +
      "normal priority (live launches go first), and refreshes unused ones until `keepAfterStartMs` after the " +
      "start. A launch then needs no platform call. Tokens are kept by the fleet (in this process, or sealed in " +
      "Redis with `redisFleet`), handed out once fleet-wide, only to the student whose `orgInternalId` and " +
      "e-mail match, for the exam's class, and only with at least `minTokenLifeMs` of life left. " +
      "Posting again replaces the plan and keeps its usable tokens.",
    params: ["examId"], body: "PrepareRequest", status: 202,
    returns: { kind: "record", schema: "PrepareProgress", description: "The plan's progress." },
    notFound: true,
    descriptions: { 404: "An exam this router does not know (`not_found`)." },
  },
  {
    operationId: "getExamPreparation", method: "get", path: "/oral-assessments/{examId}/prepare", feature: "prepare", tag: "oral assessments",
    summary: "Progress of an exam's pre-warming", params: ["examId"], status: 200,
    returns: { kind: "record", schema: "PrepareProgress", description: "The plan's progress." },
    notFound: true,
    descriptions: { 404: "The exam was never prepared (`not_prepared`)." },
  },
  scoresSpec("postExamScores", "/oral-assessments/{examId}/scores", "examId", "oral assessments", "exam"),
  scoresSpec("postRoleplayScores", "/roleplays/{roleplayId}/scores", "roleplayId", "roleplays", "role-play"),
  {
    operationId: "listExamLaunches", method: "get", path: "/oral-assessments/{examId}/launches", feature: "instructor", tag: "oral assessments",
    summary: "The exam's launch record: who launched, when, and what came of it",
    description: LAUNCHES,
    params: ["examId"], status: 200,
    returns: { kind: "list", schema: "LaunchRecord", csv: true, description: "One page of records, newest first; `meta.nextCursor` opens the next (null on the last)." },
    notFound: true, capped: true,
    descriptions: { 400: "An id that is not a platform id, or a bad `cursor`, `student`, `outcome` or `limit` (`validation_error`, naming it).", 404: "With `organization`: an exam this organization does not know (`not_found`).", 429: CAPPED_EXPORT },
  },
  {
    operationId: "getExamLive", method: "get", path: "/oral-assessments/{examId}/live", feature: "instructor", tag: "oral assessments",
    summary: "Where the exam stands now: students launched, waiting, refused, failed; pre-warming; the key's budget",
    description:
      "Students are counted once each, by their latest launch outcome in the launch record (fleet-wide when the " +
      "instances share a database). `prepared` is the pre-warming plan's progress (`expiring`: ready tokens within " +
      "60 s of the end of their usable life); `budget.used`/`limit` the key's rate budget now (per `windowMs`); " +
      "`platform429` and `platformErrors` the requests on the organization's key the platform answered 429, or 5xx " +
      "or not at all, in the last 5 minutes, fleet-wide (each retry counts; a 429 a launch waited out too). With `Accept: text/event-stream`: the same snapshot " +
      "every 2 s as Server-Sent Events (`event: snapshot`), until the client closes; computed once per exam for every stream, the streams capped by the router's `live` option.",
    params: ["examId"], status: 200,
    returns: { kind: "record", schema: "LiveSnapshot", events: true, description: "The snapshot." },
    notFound: true,
    capped: true,
    descriptions: {
      404: "With `organization`: an exam this organization does not know (`not_found`).",
      429: "An event stream beyond the router's `live` caps (per user, per organization, per router: `too_many_streams`, naming the cap); see `Retry-After`.",
    },
  },
  {
    operationId: "listOralAssessments", upstream: "listOralAssessments", method: "get", path: "/classes/{classId}/oral-assessments", feature: "instructor", tag: "oral assessments",
    summary: "The class's oral assessments, from the platform",
    description: LIST_SYNC,
    params: ["classId"], status: 200, returns: { kind: "list", description: "The assessments." },
    notFound: true,
  },
  {
    operationId: "createRoleplay", upstream: "createRoleplay", method: "post", path: "/roleplays", feature: "instructor", tag: "roleplays",
    summary: "Create a role-play in a class", status: 201,
    returns: { kind: "record", description: "The created role-play. Its `_id` is the id of the launch link `/launch/roleplay/{roleplayId}`." },
    notFound: true, conflict: true,
  },
  {
    operationId: "listRoleplays", upstream: "listRoleplays", method: "get", path: "/classes/{classId}/roleplays", feature: "instructor", tag: "roleplays",
    summary: "The class's role-plays, from the platform",
    description: LIST_SYNC,
    params: ["classId"], status: 200, returns: { kind: "list", description: "The role-plays." },
    notFound: true,
  },
  {
    operationId: "getRoleplay", upstream: "retrieveRoleplay", method: "get", path: "/roleplays/{roleplayId}", feature: "instructor", tag: "roleplays",
    summary: "One role-play, from the platform", params: ["roleplayId"], status: 200,
    returns: { kind: "record", description: "The role-play." },
    notFound: true,
  },
  {
    operationId: "updateRoleplay", upstream: "updateRoleplay", method: "put", path: "/roleplays/{roleplayId}", feature: "instructor", tag: "roleplays",
    summary: "Change a role-play's fields (only those given; scenario length limits apply)", params: ["roleplayId"], status: 200,
    returns: { kind: "record", description: "The updated role-play." },
    notFound: true, conflict: true,
  },
  {
    operationId: "deleteRoleplay", upstream: "deleteRoleplay", method: "delete", path: "/roleplays/{roleplayId}", feature: "instructor", tag: "roleplays",
    summary: "Delete a role-play", description: "Its launch link then answers 404.",
    params: ["roleplayId"], status: 204, returns: { kind: "none", description: "Deleted." },
    notFound: true,
  },
  {
    operationId: "listRoleplayLaunches", method: "get", path: "/roleplays/{roleplayId}/launches", feature: "instructor", tag: "roleplays",
    summary: "The role-play's launch record: who launched, when, and what came of it",
    description: LAUNCHES,
    params: ["roleplayId"], status: 200,
    returns: { kind: "list", schema: "LaunchRecord", csv: true, description: "One page of records, newest first; `meta.nextCursor` opens the next (null on the last)." },
    notFound: true, capped: true,
    descriptions: { 400: "An id that is not a platform id, or a bad `cursor`, `student`, `outcome` or `limit` (`validation_error`, naming it).", 404: "With `organization`: a role-play this organization does not know (`not_found`).", 429: CAPPED_EXPORT },
  },
  {
    operationId: "launchExam", upstream: "createSignInToken", method: "get", path: "/launch/{examId}", feature: "launch", tag: "launch",
    summary: "Send the signed-in student to the exam page (browser route)",
    description:
      "For a browser, not an API client: the answer is a redirect or a short HTML page, never JSON. " +
      "On a custom domain (`examHost`) a one-time sign-in token is requested from the platform and " +
      "passed in the `ticketParam` query parameter; otherwise the student goes to the platform's own exam page. " +
      "A `HEAD` (204) or a prefetch (`Sec-Purpose: prefetch`, `Purpose: prefetch`: 503) does nothing, `Cache-Control: no-store`.",
    params: ["examId"], status: 303,
    descriptions: LAUNCH_PAGES,
  },
  {
    operationId: "launchRoleplay", upstream: "createSignInToken", method: "get", path: "/launch/roleplay/{roleplayId}", feature: "launch", tag: "launch",
    summary: "Send the signed-in student to a role-play's exam page (browser route)",
    description:
      "As `launchExam` (same admission, rate budget, waiting page and pre-warmed tokens), for a role-play: " +
      "the exam page is `/exam/{roleplayId}/roleplay`.",
    params: ["roleplayId"], status: 303,
    descriptions: LAUNCH_PAGES,
  },
  {
    operationId: "getOpenApiDocument", method: "get", path: "/openapi.json", feature: "meta", tag: "meta",
    summary: "This document", status: 200,
  },
] as const satisfies readonly RouteSpec[];

/** Every route's operationId; `OperationIdOf<"instructor">`, those of one feature. */
export type OperationId = (typeof ROUTES)[number]["operationId"];
export type OperationIdOf<F extends RouteFeature> = Extract<(typeof ROUTES)[number], { feature: F }>["operationId"];

/** The route with this operationId (a typo does not compile). */
export function routeOf(operationId: OperationId): RouteSpec {
  return ROUTES.find((r) => r.operationId === operationId)!;
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
  ...new Set(ROUTES.filter((r) => r.feature === "instructor" || r.feature === "prepare" || r.feature === "gradebook").map((r) => `/${r.path.split("/")[1]}`)),
];
