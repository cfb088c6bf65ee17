/**
 * The memory store's course binding: the links in insertion order (the lists' order), the
 * exam copies by course and exam, the copy notices by course. Copies in and out, as the other tables.
 */
import {
  checkLtiCourse, checkLtiCourseCopyNotice, checkLtiCourseFilter, checkLtiCourseLink, checkLtiCourseServices, ltiCourseLinkFields, type LtiCourseCopyNotice, type LtiCourseKey, type LtiCourseServices, type LtiCourseLink, type OralStoreLtiCourses,
} from "./lti-course-types.js";

const courseKey = (org: string, c: LtiCourseKey) => JSON.stringify([org, c.issuer, c.clientId, c.deploymentId, c.contextId]);
const sameCourse = (a: LtiCourseKey, b: LtiCourseKey) => a.issuer === b.issuer && a.clientId === b.clientId && a.deploymentId === b.deploymentId && a.contextId === b.contextId;

export function memoryLtiCourses(ready: () => Promise<unknown>): OralStoreLtiCourses {
  /** Organization → its links, oldest first. */
  const links = new Map<string, LtiCourseLink[]>();
  const copies = new Map<string, string>();
  const services = new Map<string, LtiCourseServices>();
  const notices = new Map<string, LtiCourseCopyNotice>();
  const linksOf = (org: string) => links.get(org) ?? links.set(org, []).get(org)!;
  return {
    async putLtiCourseCopyNotice(course, notice) {
      checkLtiCourseCopyNotice(course, notice);
      await ready();
      notices.set(courseKey("", course), { originContextId: notice.originContextId, noticeId: notice.noticeId, noticedAt: notice.noticedAt });
    },
    async getLtiCourseCopyNotice(course) {
      checkLtiCourseCopyNotice(course);
      await ready();
      const found = notices.get(courseKey("", course));
      return found && { ...found };
    },
    async putLtiCourseServices(org, course, given) {
      checkLtiCourseServices(org, course, given);
      await ready();
      services.set(courseKey(org, course), { membershipsUrl: given.membershipsUrl, agsEndpoint: given.agsEndpoint, seenAt: given.seenAt });
    },
    async getLtiCourseServices(org, course) {
      checkLtiCourse(org, course);
      await ready();
      const found = services.get(courseKey(org, course));
      return found && { ...found };
    },
    async putLtiCourseLink(org, link) {
      checkLtiCourseLink(org, link);
      await ready();
      const list = linksOf(org);
      if (!list.some((l) => l.classId === link.classId && sameCourse(l, link))) list.push(ltiCourseLinkFields(link));
    },
    async getLtiCourseLink(org, course, classId) {
      checkLtiCourse(org, course, classId);
      await ready();
      const found = links.get(org)?.find((l) => l.classId === classId && sameCourse(l, course));
      return found && ltiCourseLinkFields(found);
    },
    async listLtiCourseLinks(org, of) {
      checkLtiCourseFilter(org, of);
      await ready();
      return (links.get(org) ?? []).filter((l) => ("course" in of ? sameCourse(l, of.course) : l.classId === of.classId)).map(ltiCourseLinkFields);
    },
    async putLtiExamCopy(org, course, fromExamId, toExamId) {
      checkLtiCourse(org, course, fromExamId, toExamId);
      await ready();
      copies.set(`${courseKey(org, course)}\u0000${fromExamId}`, toExamId);
    },
    async getLtiExamCopy(org, course, fromExamId) {
      checkLtiCourse(org, course, fromExamId);
      await ready();
      return copies.get(`${courseKey(org, course)}\u0000${fromExamId}`);
    },
  };
}
