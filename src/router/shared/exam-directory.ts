/**
 * Which class (and course) an exam belongs to: from the store, or from the integrator's
 * `resolveClassId` for exams created elsewhere. One object per router, shared by the
 * launch and prepare features, so neither threads the store, the option and a cache
 * through its calls.
 *
 * What the store says is remembered for `CACHE_MS` when the caller asks for it (the
 * launch route): in a storm, 600 launches of one exam would otherwise be 600 database
 * queries (a network round trip each on PostgreSQL) for the same row. The price: an exam
 * deleted (on this or another instance) can still be launched for up to that long.
 * `resolveClassId` answers are not cached: they may depend on the request.
 *
 * Lookups are per organization, like the store's: an exam recorded for one organization
 * is unknown to every other, in the cache as in the store.
 */
import type { Request } from "express";
import { RecordId } from "../../platform/schemas.js";
import type { ExamKind, OralStore } from "../../store/types.js";
import type { OralAssessmentsOptions } from "./options.js";

/** Exam ids are platform `_id`s: anything else is refused before a lookup or a redirect. */
export const EXAM_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export interface ExamClass {
  classId: string;
  courseId: string | undefined;
  /** What the store says the exam is; undefined for exams only `resolveClassId` knows. */
  kind?: ExamKind;
}

const CACHE_MS = 2_000;
const CACHE_MAX = 1_000;

export interface LookupOptions {
  /** The request, for `resolveClassId`. Absent for the programmatic API, which then knows only the store's exams. */
  req?: Request;
  /** Answer from the 2 s cache of store rows (the launch hot path). Default false. */
  cached?: boolean;
}

export class ExamDirectory {
  /** (organization, exam) → class as the store last said, with when it said it (Map order: oldest first). */
  private readonly cache = new Map<string, { at: number; exam: ExamClass }>();

  constructor(
    private readonly store: OralStore,
    private readonly resolveClassId: OralAssessmentsOptions["resolveClassId"],
  ) {}

  /** Forgets every cached answer: an exam or class was deleted (or moved) through this router. */
  forget(): void {
    this.cache.clear();
  }

  /** `org`: the organization the lookup acts for (see `OrganizationIdOf`). */
  async classOf(org: string, examId: string, { req, cached = false }: LookupOptions = {}): Promise<ExamClass | undefined> {
    const now = Date.now();
    // Organization ids hold no NUL (see isOrganizationId): the key is unambiguous.
    const key = `${org}\u0000${examId}`;
    const hit = cached ? this.cache.get(key) : undefined;
    if (hit && now - hit.at < CACHE_MS) return hit.exam;
    const record = await this.store.getAssessment(org, examId);
    if (record) {
      const exam: ExamClass = { classId: record.classId, courseId: record.courseId, kind: record.kind ?? "oral" };
      if (cached) {
        this.cache.delete(key);
        // A full cache drops the exam looked up longest ago.
        if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(key, { at: now, exam });
      }
      return exam;
    }
    if (!req || !this.resolveClassId) return undefined;
    const resolved = await this.resolveClassId(examId, req, org);
    const found = typeof resolved === "string" ? { classId: resolved, courseId: undefined }
      : resolved && typeof resolved === "object" ? { classId: resolved.classId, courseId: resolved.courseId } : undefined;
    // Ids from the integrator are checked like any id the client would send; a bad one is
    // an exam we cannot launch.
    if (!found || !RecordId.safeParse(found.classId).success) return undefined;
    if (found.courseId !== undefined && !RecordId.safeParse(found.courseId).success) return undefined;
    return found;
  }
}
