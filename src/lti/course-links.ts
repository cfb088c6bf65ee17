/**
 * Which class an LMS course (`context.id`, unique within its issuer) was linked to, per
 * organization: remembered when an instructor places an exam with Deep Linking, read to
 * list that class's exams first the next time. Kept in the fleet's single-use store
 * (peeked, never taken) for `COURSE_LINK_TTL_MS`: every instance sees it, a Redis fleet
 * keeps it sealed, and forgetting it only costs the picker its ordering. It is not a
 * store table: a restart of an in-process router forgets it.
 */
import type { SingleUseStore } from "../fleet/single-use.js";

const COURSE_LINK_TTL_MS = 180 * 24 * 60 * 60_000;
const keyOf = (org: string, issuer: string, contextId: string) => `lti-course:${JSON.stringify([org, issuer, contextId])}`;

export class CourseLinks {
  constructor(private readonly store: SingleUseStore) {}

  remember(org: string, issuer: string, contextId: string, classId: string): Promise<void> {
    return this.store.put(keyOf(org, issuer, contextId), classId, COURSE_LINK_TTL_MS);
  }

  classOf(org: string, issuer: string, contextId: string): Promise<string | undefined> {
    return this.store.peek(keyOf(org, issuer, contextId));
  }
}
