/**
 * The platform's endpoints, each described once: method, path, the schema of what is
 * sent and of what comes back, and whether the answer is a list. The client builds its
 * resource methods from this table (`resources.ts`), the emulator binds one handler per
 * entry at the entry's method and path, and the router's OpenAPI document names the
 * upstream call and its schemas from it; the client's method types are derived from it
 * too (`endpoint-types.ts`). A new endpoint is its schemas, one entry here, its handler in
 * the emulator, a test and a line in docs/client.md.
 *
 * Paths are relative to `/api/v1/<env>` and written the OpenAPI way (`/courses/{courseId}`).
 * The platform paginates nothing: a list is one array.
 */
import type { z } from "zod";
import {
  Class, ClassCreate, ClassUpdate, Course, CourseCreate, CourseUpdate, ListFilter, OralAssessment, OralAssessmentCreate,
  OralAssessmentUpdate, Roleplay, RoleplayCreate, RoleplayUpdate, SignInToken, SignInTokenRequest,
} from "./schemas.js";
import type { HttpMethod } from "./retry.js";
import type { RequestPriority } from "./request-options.js";

export interface EndpointSpec {
  method: HttpMethod;
  path: string;
  /** The client's resource and method: `courses.create` is `client.courses.create`. */
  resource: string;
  action: string;
  /** What the messages call one record: "a course". */
  what: string;
  /** Schema of the JSON body sent. */
  body?: z.ZodType;
  /** Schema of the query filter a list takes (`?classId=`). */
  query?: z.ZodType;
  /** Schema of the record that comes back; none: the answer carries nothing the client reads (a DELETE). */
  answer?: z.ZodType;
  /** The answer is an array of `answer` records. */
  list?: true;
  /** The platform's success status. */
  status: 200 | 201 | 204;
  /** The rate budget's queue the call waits in unless the caller says otherwise. Default `normal`. */
  priority?: RequestPriority;
}

/**
 * The five endpoints of a resource the platform creates, lists, reads, changes and deletes.
 * (Each schema is its own type parameter: TypeScript infers one object parameter holding
 * zod schemas as its bare constraint, which would lose the schemas' types.)
 */
function crud<
  R extends string, P extends string, Id extends string, Rec extends z.ZodType, C extends z.ZodType, U extends z.ZodType,
  F extends z.ZodType | undefined = undefined,
>(resource: R, [noun, plural]: [string, string], collection: P, idParam: Id, record: Rec, create: C, update: U, filter?: F) {
  // The paths keep their literal types: the client's methods take one id per `{…}` (endpoint-types.ts).
  const item = `${collection}/{${idParam}}` as const;
  return {
    create: { method: "POST", path: collection, resource, action: "create", what: noun, body: create, answer: record, status: 201 },
    list: { method: "GET", path: collection, resource, action: "list", what: `a list of ${plural}`, query: filter, answer: record, list: true, status: 200 },
    retrieve: { method: "GET", path: item, resource, action: "retrieve", what: noun, answer: record, status: 200 },
    update: { method: "PUT", path: item, resource, action: "update", what: noun, body: update, answer: record, status: 200 },
    del: { method: "DELETE", path: item, resource, action: "del", what: noun, status: 204 },
  } as const;
}

const courses = crud("courses", ["a course", "courses"], "/courses", "courseId", Course, CourseCreate, CourseUpdate);
const classes = crud("classes", ["a class", "classes"], "/courses/{courseId}/classes", "classId", Class, ClassCreate, ClassUpdate);
const oralAssessments = crud("oralAssessments", ["an oral assessment", "oral assessments"], "/oral-assessments", "examId",
  OralAssessment, OralAssessmentCreate, OralAssessmentUpdate, ListFilter);
// `/roleplay`, singular, as the reference has it.
const roleplays = crud("roleplays", ["a role-play", "role-plays"], "/roleplay", "roleplayId", Roleplay, RoleplayCreate, RoleplayUpdate, ListFilter);

export const ENDPOINTS = {
  createCourse: courses.create, listCourses: courses.list, retrieveCourse: courses.retrieve, updateCourse: courses.update, deleteCourse: courses.del,
  createClass: classes.create, listClasses: classes.list, retrieveClass: classes.retrieve, updateClass: classes.update, deleteClass: classes.del,
  createOralAssessment: oralAssessments.create, listOralAssessments: oralAssessments.list, retrieveOralAssessment: oralAssessments.retrieve,
  updateOralAssessment: oralAssessments.update, deleteOralAssessment: oralAssessments.del,
  createRoleplay: roleplays.create, listRoleplays: roleplays.list, retrieveRoleplay: roleplays.retrieve,
  updateRoleplay: roleplays.update, deleteRoleplay: roleplays.del,
  createSignInToken: {
    method: "POST", path: "/students/sign-in-token", resource: "students", action: "createSignInToken", what: "a sign-in token",
    // Asked for while a student waits at the launch page: ahead of instructor traffic.
    body: SignInTokenRequest, answer: SignInToken, status: 200, priority: "launch",
  },
} as const satisfies Record<string, EndpointSpec>;

export type EndpointId = keyof typeof ENDPOINTS;

/** The path parameters of an endpoint, in order: `/courses/{courseId}/classes/{classId}` → courseId, classId. */
export function pathParams(spec: Pick<EndpointSpec, "path">): string[] {
  return [...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}
