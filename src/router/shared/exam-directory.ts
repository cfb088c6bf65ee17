/**
 * Which class (and course) an exam belongs to: from the store, or from the integrator's
 * `resolveClassId` for exams created elsewhere. Shared by the launch and prepare routes.
 *
 * What the store says is remembered for `CACHE_MS`: in a storm, 600 launches of one exam
 * would otherwise be 600 database queries (a network round trip each on PostgreSQL) for
 * the same row. The price: an exam deleted (on this or another instance) can still be
 * launched for up to that long. `resolveClassId` answers are not cached: they may depend
 * on the request.
 */
import type { Request } from "express";
import { RecordId } from "../../platform/schemas.js";
import type { OralStore } from "../../store/types.js";
import type { RouterSettings } from "../options.js";

/** Exam ids are platform `_id`s: anything else is refused before a lookup or a redirect. */
export const EXAM_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export interface ExamClass {
  classId: string;
  courseId: string | undefined;
}

const CACHE_MS = 2_000;
const CACHE_MAX = 1_000;

/** Exam → class as the store last said, with when it said it. Per router (per store). */
export type ExamClassCache = Map<string, { at: number; exam: ExamClass }>;

/** `req` is absent for the programmatic API, which then knows only the store's exams. */
export async function examClassOf(settings: RouterSettings, store: () => Promise<OralStore>, examId: string, req?: Request, cache?: ExamClassCache): Promise<ExamClass | undefined> {
  const now = Date.now();
  const cached = cache?.get(examId);
  if (cached && now - cached.at < CACHE_MS) return cached.exam;
  const record = await (await store()).getAssessment(examId);
  if (record) {
    const exam = { classId: record.classId, courseId: record.courseId };
    if (cache) {
      cache.delete(examId);
      // Oldest first (Map order): a full cache drops the exam looked up longest ago.
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(examId, { at: now, exam });
    }
    return exam;
  }
  if (!req || !settings.resolveClassId) return undefined;
  const resolved = await settings.resolveClassId(examId, req);
  const found = typeof resolved === "string" ? { classId: resolved, courseId: undefined }
    : resolved && typeof resolved === "object" ? { classId: resolved.classId, courseId: resolved.courseId } : undefined;
  // Ids from the integrator are checked like any id the client would send; a bad one is
  // an exam we cannot launch.
  if (!found || !RecordId.safeParse(found.classId).success) return undefined;
  if (found.courseId !== undefined && !RecordId.safeParse(found.courseId).success) return undefined;
  return found;
}
