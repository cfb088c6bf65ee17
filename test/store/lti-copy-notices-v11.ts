/**
 * A version-11 database's course link, for the upgrade tests of both SQL stores: once
 * upgraded (schema version 12), the link is still there, and a copy notice for the course
 * copied from it is written, read, and replaced by a later one (latest wins).
 */
import { expect } from "vitest";
import type { OralStoreWithLti } from "../../src/store/types.js";

/** Column order of lti_course_links' course: issuer, client_id, deployment_id, context_id. */
export const V11_COURSE = { issuer: "https://canvas.example", clientId: "10000000000042", deploymentId: "189:abc", contextId: "course-a" };

export async function expectV11Upgraded(store: OralStoreWithLti, org: string): Promise<void> {
  expect(await store.getLtiCourseLink(org, V11_COURSE, "class-1")).toMatchObject({ linkedBy: "ines" });
  const copied = { ...V11_COURSE, contextId: "course-b" };
  expect(await store.getLtiCourseCopyNotice(copied)).toBeUndefined();
  await store.putLtiCourseCopyNotice(copied, { originContextId: "course-a", noticeId: "n-1", noticedAt: "2026-11-02T08:00:00Z" });
  expect(await store.getLtiCourseCopyNotice(copied)).toEqual({ originContextId: "course-a", noticeId: "n-1", noticedAt: "2026-11-02T08:00:00Z" });
  await store.putLtiCourseCopyNotice(copied, { originContextId: undefined, noticeId: "n-2", noticedAt: "2026-11-03T08:00:00Z" });
  expect(await store.getLtiCourseCopyNotice(copied)).toEqual({ originContextId: undefined, noticeId: "n-2", noticedAt: "2026-11-03T08:00:00Z" });
  expect(await store.getLtiCourseCopyNotice(V11_COURSE)).toBeUndefined();
}
