/**
 * The SQLite store's course binding (schema versions 8, 9 and 12): statements prepared once per
 * opened database. A link written twice keeps its first row (its linker, its time, its
 * place in the lists).
 */
import type BetterSqlite3 from "better-sqlite3";
import {
  checkLtiCourse, checkLtiCourseCopyNotice, checkLtiCourseFilter, checkLtiCourseLink, checkLtiCourseServices, toLtiCourseCopyNotice, toLtiCourseLink, toLtiCourseServices,
  type LtiCourseCopyNoticeRow, type LtiCourseKey, type LtiCourseLinkRow, type LtiCourseServicesRow, type OralStoreLtiCourses,
} from "./lti-course-types.js";

const COLUMNS = "issuer, client_id, deployment_id, context_id, class_id, linked_by, linked_at";
const COURSE = "organization = @org AND issuer = @issuer AND client_id = @clientId AND deployment_id = @deploymentId AND context_id = @contextId";

const SQL = {
  put: `INSERT INTO lti_course_links (organization, ${COLUMNS})
    VALUES (@org, @issuer, @clientId, @deploymentId, @contextId, @classId, @linkedBy, @linkedAt)
    ON CONFLICT (organization, issuer, client_id, deployment_id, context_id, class_id) DO NOTHING`,
  get: `SELECT ${COLUMNS} FROM lti_course_links WHERE ${COURSE} AND class_id = @classId`,
  ofClass: `SELECT ${COLUMNS} FROM lti_course_links WHERE organization = @org AND class_id = @classId ORDER BY seq`,
  ofCourse: `SELECT ${COLUMNS} FROM lti_course_links WHERE ${COURSE} ORDER BY seq`,
  putCopy: `INSERT INTO lti_exam_copies (organization, issuer, client_id, deployment_id, context_id, from_exam_id, to_exam_id)
    VALUES (@org, @issuer, @clientId, @deploymentId, @contextId, @fromExamId, @toExamId)
    ON CONFLICT (organization, issuer, client_id, deployment_id, context_id, from_exam_id) DO UPDATE SET to_exam_id = excluded.to_exam_id`,
  getCopy: `SELECT to_exam_id FROM lti_exam_copies WHERE ${COURSE} AND from_exam_id = @fromExamId`,
  putServices: `INSERT INTO lti_course_services (organization, issuer, client_id, deployment_id, context_id, memberships_url, ags_endpoint, seen_at)
    VALUES (@org, @issuer, @clientId, @deploymentId, @contextId, @membershipsUrl, @agsEndpoint, @seenAt)
    ON CONFLICT (organization, issuer, client_id, deployment_id, context_id) DO UPDATE SET
      memberships_url = excluded.memberships_url, ags_endpoint = excluded.ags_endpoint, seen_at = excluded.seen_at`,
  getServices: `SELECT memberships_url, ags_endpoint, seen_at FROM lti_course_services WHERE ${COURSE}`,
  putNotice: `INSERT INTO lti_course_copy_notices (issuer, client_id, deployment_id, context_id, origin_context_id, notice_id, noticed_at)
    VALUES (@issuer, @clientId, @deploymentId, @contextId, @origin, @noticeId, @noticedAt)
    ON CONFLICT (issuer, client_id, deployment_id, context_id) DO UPDATE SET
      origin_context_id = excluded.origin_context_id, notice_id = excluded.notice_id, noticed_at = excluded.noticed_at`,
  getNotice: `SELECT origin_context_id, notice_id, noticed_at FROM lti_course_copy_notices
    WHERE issuer = @issuer AND client_id = @clientId AND deployment_id = @deploymentId AND context_id = @contextId`,
} as const;

type Statements = Record<keyof typeof SQL, BetterSqlite3.Statement>;
const courseParams = (org: string, c: LtiCourseKey) => ({ org, issuer: c.issuer, clientId: c.clientId, deploymentId: c.deploymentId, contextId: c.contextId });

export function sqliteLtiCourses(ready: () => Promise<{ db: BetterSqlite3.Database }>): OralStoreLtiCourses {
  const prepared = new WeakMap<BetterSqlite3.Database, Statements>();
  const statements = async () => {
    const { db } = await ready();
    let found = prepared.get(db);
    if (!found) {
      found = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
      prepared.set(db, found);
    }
    return found;
  };
  const noticeKey = (c: LtiCourseKey) => ({ issuer: c.issuer, clientId: c.clientId, deploymentId: c.deploymentId, contextId: c.contextId });
  return {
    async putLtiCourseCopyNotice(course, notice) {
      checkLtiCourseCopyNotice(course, notice);
      (await statements()).putNotice.run({ ...noticeKey(course), origin: notice.originContextId ?? null, noticeId: notice.noticeId, noticedAt: notice.noticedAt });
    },
    async getLtiCourseCopyNotice(course) {
      checkLtiCourseCopyNotice(course);
      const row = (await statements()).getNotice.get(noticeKey(course)) as LtiCourseCopyNoticeRow | undefined;
      return row && toLtiCourseCopyNotice(row);
    },
    async putLtiCourseServices(org, course, given) {
      checkLtiCourseServices(org, course, given);
      (await statements()).putServices.run({ ...courseParams(org, course), membershipsUrl: given.membershipsUrl ?? null, agsEndpoint: given.agsEndpoint ?? null, seenAt: given.seenAt });
    },
    async getLtiCourseServices(org, course) {
      checkLtiCourse(org, course);
      const row = (await statements()).getServices.get(courseParams(org, course)) as LtiCourseServicesRow | undefined;
      return row && toLtiCourseServices(row);
    },
    async putLtiCourseLink(org, link) {
      checkLtiCourseLink(org, link);
      (await statements()).put.run({ ...courseParams(org, link), classId: link.classId, linkedBy: link.linkedBy, linkedAt: link.linkedAt });
    },
    async getLtiCourseLink(org, course, classId) {
      checkLtiCourse(org, course, classId);
      const row = (await statements()).get.get({ ...courseParams(org, course), classId }) as LtiCourseLinkRow | undefined;
      return row && toLtiCourseLink(row);
    },
    async listLtiCourseLinks(org, of) {
      checkLtiCourseFilter(org, of);
      const s = await statements();
      const rows = "course" in of ? s.ofCourse.all(courseParams(org, of.course)) : s.ofClass.all({ org, classId: of.classId });
      return (rows as LtiCourseLinkRow[]).map(toLtiCourseLink);
    },
    async putLtiExamCopy(org, course, fromExamId, toExamId) {
      checkLtiCourse(org, course, fromExamId, toExamId);
      (await statements()).putCopy.run({ ...courseParams(org, course), fromExamId, toExamId });
    },
    async getLtiExamCopy(org, course, fromExamId) {
      checkLtiCourse(org, course, fromExamId);
      return ((await statements()).getCopy.get({ ...courseParams(org, course), fromExamId }) as { to_exam_id: string } | undefined)?.to_exam_id;
    },
  };
}
