/**
 * Course binding (DESIGN.md v3): which classes an LMS course is linked to, per
 * organization, and which exam a copied course's link now opens. An LMS course is the
 * launch's (issuer, client id, deployment, `context.id`): the same `context.id` under
 * another deployment or LMS is another course. A link is written when an instructor of
 * the course places or opens an exam there; a learner's launch reads it.
 */
import { isText } from "../core/text.js";

/** One LMS course: the launch's issuer, client id, deployment id and `context.id` (each 1-255 characters). */
export interface LtiCourseKey {
  issuer: string;
  clientId: string;
  deploymentId: string;
  contextId: string;
}

/** A class linked to an LMS course. */
export interface LtiCourseLink extends LtiCourseKey {
  classId: string;
  /** The `sub` of the instructor whose launch made the link. */
  linkedBy: string;
  /** ISO 8601. */
  linkedAt: string;
}

/**
 * An LMS course's LTI Advantage service endpoints, as its last launch carried them
 * (schema version 9): what a later request made without a launch (preparing the roster,
 * a score posted from the outbox) calls.
 */
export interface LtiCourseServices {
  /** NRPS `context_memberships_url` (the namesroleservice claim); undefined: the LMS offers none. */
  membershipsUrl: string | undefined;
  /** The AGS endpoint claim, as JSON text (its `lineitems`, `lineitem`, `scope`); undefined: none. */
  agsEndpoint: string | undefined;
  /** ISO 8601: the launch that carried them. */
  seenAt: string;
}

/**
 * An LMS's word that a course is a copy (schema version 12): the LTI Platform Notification
 * Service's `LtiContextCopyNotice`, kept per new course until an instructor's choice makes
 * the notice moot. Global, not per organization: a notice arrives server to server, with
 * no organization of its own, and the course key names the LMS.
 */
export interface LtiCourseCopyNotice {
  /** The course it was copied from (`origin_contexts`' first); undefined: the LMS named none. */
  originContextId: string | undefined;
  /** The notice's id (its `notice.id` claim). */
  noticeId: string;
  /** ISO 8601: when the copy was made (the notice's timestamp), else when the notice arrived. */
  noticedAt: string;
}

export interface OralStoreLtiCourses {
  /** Records a copy notice for the new course (latest wins). */
  putLtiCourseCopyNotice(course: LtiCourseKey, notice: LtiCourseCopyNotice): Promise<void>;
  /** The course's copy notice, or undefined. */
  getLtiCourseCopyNotice(course: LtiCourseKey): Promise<LtiCourseCopyNotice | undefined>;
  /** Records the course's service endpoints (latest wins). */
  putLtiCourseServices(org: string, course: LtiCourseKey, services: LtiCourseServices): Promise<void>;
  /** The course's service endpoints as last recorded, or undefined. */
  getLtiCourseServices(org: string, course: LtiCourseKey): Promise<LtiCourseServices | undefined>;
  /** Links the class to the course; a link already there is kept as it was (first linker, first time). */
  putLtiCourseLink(org: string, link: LtiCourseLink): Promise<void>;
  /** The link of this class to this course, or undefined. */
  getLtiCourseLink(org: string, course: LtiCourseKey, classId: string): Promise<LtiCourseLink | undefined>;
  /** The links of one class (to every course), or of one course (to every class), oldest first. */
  listLtiCourseLinks(org: string, of: { classId: string } | { course: LtiCourseKey }): Promise<LtiCourseLink[]>;
  /**
   * Records that, in this course, links naming exam `fromExamId` open `toExamId` (its copy
   * in a class of the course's own, made at the instructor's first launch after a course
   * copy). Latest wins.
   */
  putLtiExamCopy(org: string, course: LtiCourseKey, fromExamId: string, toExamId: string): Promise<void>;
  /** The exam links naming `fromExamId` open in this course, or undefined. */
  getLtiExamCopy(org: string, course: LtiCourseKey, fromExamId: string): Promise<string | undefined>;
}

/** A TypeError, like the other checks: a bad key is a bug in the caller. */
export function checkLtiCourse(org: unknown, course: LtiCourseKey, ...ids: unknown[]): void {
  if (!isText(org, 255) || typeof course !== "object" || course === null
    || ![course.issuer, course.clientId, course.deploymentId, course.contextId, ...ids].every((id) => isText(id, 255))) {
    throw new TypeError("invalid LTI course key: organization, issuer, clientId, deploymentId, contextId and ids must be strings of 1-255 characters");
  }
}

export function checkLtiCourseFilter(org: unknown, of: { classId: string } | { course: LtiCourseKey }): void {
  if (typeof of === "object" && of !== null && "course" in of) return checkLtiCourse(org, of.course);
  if (!isText(org, 255) || !isText((of as { classId?: unknown } | null)?.classId, 255)) throw new TypeError("invalid LTI course link filter: give { classId } or { course }");
}

export function checkLtiCourseLink(org: unknown, link: LtiCourseLink): void {
  checkLtiCourse(org, link, link?.classId, link?.linkedBy);
  if (typeof link.linkedAt !== "string" || Number.isNaN(Date.parse(link.linkedAt))) throw new TypeError("invalid LTI course link: linkedAt must be an ISO 8601 timestamp");
}

/** A SQL row (both dialects). */
export interface LtiCourseLinkRow {
  issuer: string;
  client_id: string;
  deployment_id: string;
  context_id: string;
  class_id: string;
  linked_by: string;
  linked_at: string;
}

export function toLtiCourseLink(r: LtiCourseLinkRow): LtiCourseLink {
  return { issuer: r.issuer, clientId: r.client_id, deploymentId: r.deployment_id, contextId: r.context_id, classId: r.class_id, linkedBy: r.linked_by, linkedAt: r.linked_at };
}

/** Own fields only: what every backend gives back. */
export function ltiCourseLinkFields(l: LtiCourseLink): LtiCourseLink {
  return { issuer: l.issuer, clientId: l.clientId, deploymentId: l.deploymentId, contextId: l.contextId, classId: l.classId, linkedBy: l.linkedBy, linkedAt: l.linkedAt };
}

/** A TypeError for services a caller built wrong: URLs up to 2,048 characters, the AGS claim up to 8 KiB. */
export function checkLtiCourseServices(org: unknown, course: LtiCourseKey, s: LtiCourseServices): void {
  checkLtiCourse(org, course);
  const ok = typeof s === "object" && s !== null
    && (s.membershipsUrl === undefined || isText(s.membershipsUrl, 2048, { min: 0 }))
    && (s.agsEndpoint === undefined || isText(s.agsEndpoint, 8192, { min: 0 }))
    && typeof s.seenAt === "string" && !Number.isNaN(Date.parse(s.seenAt));
  if (!ok) throw new TypeError("invalid LTI course services: membershipsUrl (≤ 2048), agsEndpoint (JSON ≤ 8 KiB) and seenAt (ISO 8601)");
}

/** A TypeError for a notice a caller built wrong: the course's ids and the notice's of 1-255 characters, an ISO 8601 time. */
export function checkLtiCourseCopyNotice(course: LtiCourseKey, n: LtiCourseCopyNotice | undefined = undefined): void {
  checkLtiCourse("global", course);
  if (n === undefined) return;
  const ok = typeof n === "object" && n !== null && isText(n.noticeId, 255) && (n.originContextId === undefined || isText(n.originContextId, 255))
    && typeof n.noticedAt === "string" && !Number.isNaN(Date.parse(n.noticedAt));
  if (!ok) throw new TypeError("invalid LTI course copy notice: noticeId and originContextId (1-255 characters) and noticedAt (ISO 8601)");
}

/** A SQL row (both dialects) of lti_course_copy_notices. */
export interface LtiCourseCopyNoticeRow { origin_context_id: string | null; notice_id: string; noticed_at: string }

export const toLtiCourseCopyNotice = (r: LtiCourseCopyNoticeRow): LtiCourseCopyNotice =>
  ({ originContextId: r.origin_context_id ?? undefined, noticeId: r.notice_id, noticedAt: r.noticed_at });

/** A SQL row (both dialects) of lti_course_services. */
export interface LtiCourseServicesRow { memberships_url: string | null; ags_endpoint: string | null; seen_at: string }

export function toLtiCourseServices(r: LtiCourseServicesRow): LtiCourseServices {
  return { membershipsUrl: r.memberships_url ?? undefined, agsEndpoint: r.ags_endpoint ?? undefined, seenAt: r.seen_at };
}
