/**
 * The PostgreSQL store's course binding (schema versions 8, 9 and 12): one statement per call. A
 * link written twice keeps its first row (`ON CONFLICT DO NOTHING`): two instructors'
 * concurrent first launches both succeed, and one of them is recorded as the linker.
 */
import type { PostgresPool } from "./postgres-pool.js";
import type { Names } from "./postgres-schema.js";
import {
  checkLtiCourse, checkLtiCourseCopyNotice, checkLtiCourseFilter, checkLtiCourseLink, checkLtiCourseServices, toLtiCourseCopyNotice, toLtiCourseLink, toLtiCourseServices,
  type LtiCourseCopyNoticeRow, type LtiCourseKey, type LtiCourseLinkRow, type LtiCourseServicesRow, type OralStoreLtiCourses,
} from "./lti-course-types.js";

const COLUMNS = "issuer, client_id, deployment_id, context_id, class_id, linked_by, linked_at";
/** $1 organization, $2-$5 the course. */
const COURSE = "organization = $1 AND issuer = $2 AND client_id = $3 AND deployment_id = $4 AND context_id = $5";

function queries(n: Names) {
  return {
    put: `INSERT INTO ${n.ltiCourseLinks} (organization, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (organization, issuer, client_id, deployment_id, context_id, class_id) DO NOTHING`,
    get: `SELECT ${COLUMNS} FROM ${n.ltiCourseLinks} WHERE ${COURSE} AND class_id = $6`,
    ofClass: `SELECT ${COLUMNS} FROM ${n.ltiCourseLinks} WHERE organization = $1 AND class_id = $2 ORDER BY seq`,
    ofCourse: `SELECT ${COLUMNS} FROM ${n.ltiCourseLinks} WHERE ${COURSE} ORDER BY seq`,
    putCopy: `INSERT INTO ${n.ltiExamCopies} (organization, issuer, client_id, deployment_id, context_id, from_exam_id, to_exam_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (organization, issuer, client_id, deployment_id, context_id, from_exam_id) DO UPDATE SET to_exam_id = EXCLUDED.to_exam_id`,
    getCopy: `SELECT to_exam_id FROM ${n.ltiExamCopies} WHERE ${COURSE} AND from_exam_id = $6`,
    putServices: `INSERT INTO ${n.ltiCourseServices} (organization, issuer, client_id, deployment_id, context_id, memberships_url, ags_endpoint, seen_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (organization, issuer, client_id, deployment_id, context_id) DO UPDATE SET
        memberships_url = EXCLUDED.memberships_url, ags_endpoint = EXCLUDED.ags_endpoint, seen_at = EXCLUDED.seen_at`,
    getServices: `SELECT memberships_url, ags_endpoint, seen_at FROM ${n.ltiCourseServices} WHERE ${COURSE}`,
    putNotice: `INSERT INTO ${n.ltiCourseCopyNotices} (issuer, client_id, deployment_id, context_id, origin_context_id, notice_id, noticed_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (issuer, client_id, deployment_id, context_id) DO UPDATE SET
        origin_context_id = EXCLUDED.origin_context_id, notice_id = EXCLUDED.notice_id, noticed_at = EXCLUDED.noticed_at`,
    getNotice: `SELECT origin_context_id, notice_id, noticed_at FROM ${n.ltiCourseCopyNotices}
      WHERE issuer = $1 AND client_id = $2 AND deployment_id = $3 AND context_id = $4`,
  };
}

const courseValues = (org: string, c: LtiCourseKey) => [org, c.issuer, c.clientId, c.deploymentId, c.contextId];

export function postgresLtiCourses(n: Names, ready: () => Promise<{ pool: PostgresPool }>): OralStoreLtiCourses {
  const sql = queries(n);
  const rows = async (text: string, values: unknown[]) => (await (await ready()).pool.query(text, values)).rows as unknown[];
  const noticeKey = (c: LtiCourseKey) => [c.issuer, c.clientId, c.deploymentId, c.contextId];
  return {
    async putLtiCourseCopyNotice(course, notice) {
      checkLtiCourseCopyNotice(course, notice);
      await rows(sql.putNotice, [...noticeKey(course), notice.originContextId ?? null, notice.noticeId, notice.noticedAt]);
    },
    async getLtiCourseCopyNotice(course) {
      checkLtiCourseCopyNotice(course);
      const [row] = (await rows(sql.getNotice, noticeKey(course))) as LtiCourseCopyNoticeRow[];
      return row && toLtiCourseCopyNotice(row);
    },
    async putLtiCourseServices(org, course, given) {
      checkLtiCourseServices(org, course, given);
      await rows(sql.putServices, [...courseValues(org, course), given.membershipsUrl ?? null, given.agsEndpoint ?? null, given.seenAt]);
    },
    async getLtiCourseServices(org, course) {
      checkLtiCourse(org, course);
      const [row] = (await rows(sql.getServices, courseValues(org, course))) as LtiCourseServicesRow[];
      return row && toLtiCourseServices(row);
    },
    async putLtiCourseLink(org, link) {
      checkLtiCourseLink(org, link);
      await rows(sql.put, [...courseValues(org, link), link.classId, link.linkedBy, link.linkedAt]);
    },
    async getLtiCourseLink(org, course, classId) {
      checkLtiCourse(org, course, classId);
      const [row] = (await rows(sql.get, [...courseValues(org, course), classId])) as LtiCourseLinkRow[];
      return row && toLtiCourseLink(row);
    },
    async listLtiCourseLinks(org, of) {
      checkLtiCourseFilter(org, of);
      const found = "course" in of ? await rows(sql.ofCourse, courseValues(org, of.course)) : await rows(sql.ofClass, [org, of.classId]);
      return (found as LtiCourseLinkRow[]).map(toLtiCourseLink);
    },
    async putLtiExamCopy(org, course, fromExamId, toExamId) {
      checkLtiCourse(org, course, fromExamId, toExamId);
      await rows(sql.putCopy, [...courseValues(org, course), fromExamId, toExamId]);
    },
    async getLtiExamCopy(org, course, fromExamId) {
      checkLtiCourse(org, course, fromExamId);
      const [row] = (await rows(sql.getCopy, [...courseValues(org, course), fromExamId])) as { to_exam_id: string }[];
      return row?.to_exam_id;
    },
  };
}
