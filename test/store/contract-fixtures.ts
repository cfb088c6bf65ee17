/**
 * What the OralStore contract's parts share: the organization they write under, record
 * builders, and the harness that opens a store per test on a place of its own.
 */
import type { AssessmentRecord, ClassRecord, CourseRecord, ExamKind, OralStore } from "../../src/store/types.js";

/** Not the default organization: nothing here may work only because of a fallback to it. */
export const ORG = "north";

/** What each contract part gets from `describeStoreContract`. */
export interface StoreHarness {
  /** Opens a store on `where` (default: a new place), closed after the test. */
  open(where?: string): OralStore;
  /** A new place: a store opened on it starts empty. */
  place(): string;
  /** True when two stores opened on the same place share records. */
  persistent: boolean;
}

export const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString();
export const course = (id: string, minute = 0, data: Record<string, unknown> = {}): CourseRecord =>
  ({ id, name: `Course ${id}`, data: { _id: id, ...data }, createdAt: at(minute) });
export const klass = (id: string, courseId: string, minute = 0): ClassRecord =>
  ({ id, courseId, name: `Class ${id}`, data: { _id: id, courseId }, createdAt: at(minute) });
export const exam = (id: string, classId: string, courseId: string | undefined, minute = 0, kind: ExamKind = "oral"): AssessmentRecord =>
  ({ id, kind, classId, courseId, name: `Exam ${id}`, data: { _id: id, classId }, createdAt: at(minute) });
export const ids = (records: { id: string }[]) => records.map((r) => r.id);
