/**
 * What every backend does to a record the same way: check it before writing, and work
 * out the key it is listed by. Sharing this keeps memory, SQLite and PostgreSQL from
 * drifting apart on the edge cases (odd timestamps, missing names).
 */
import { isOrganizationId, type AssessmentRecord, type ClassRecord, type CourseRecord, type ExamKind } from "./types.js";

type AnyRecord = CourseRecord | ClassRecord | AssessmentRecord;

const ORGANIZATION_PROBLEM = "org must be an organization id (1-64 letters, digits, _ . or -)";

/**
 * Rejects an organization id no backend may scope by. A TypeError, like `checkRecord`:
 * an unscoped or malformed lookup is a bug in the caller, and must never fall back to
 * some organization.
 */
export function checkOrganization(org: unknown): void {
  if (!isOrganizationId(org)) throw new TypeError(`invalid organization: ${ORGANIZATION_PROBLEM}`);
}

/**
 * Rejects a record no backend could store faithfully. A TypeError, not a
 * ConfigurationError: a bad record is a bug in the caller, not in the integrator's options.
 */
export function checkRecord(kind: "course" | "class" | "assessment", org: unknown, record: AnyRecord): void {
  const problems: string[] = [];
  if (!isOrganizationId(org)) problems.push(ORGANIZATION_PROBLEM);
  const text = (field: string, value: unknown, optional = false): void => {
    if (optional && value === undefined) return;
    if (typeof value !== "string" || value.length === 0) problems.push(`${field} must be a non-empty string`);
  };
  if (typeof record !== "object" || record === null) throw new TypeError(`${kind} record must be an object`);
  text("id", record.id);
  if (typeof record.name !== "string") problems.push("name must be a string");
  if (typeof record.data !== "object" || record.data === null || Array.isArray(record.data)) {
    problems.push("data must be a plain object");
  }
  if (typeof record.createdAt !== "string" || Number.isNaN(Date.parse(record.createdAt))) {
    problems.push("createdAt must be an ISO 8601 timestamp");
  }
  if ("kind" in record && record.kind !== undefined && record.kind !== "oral" && record.kind !== "roleplay") {
    problems.push('kind must be "oral" or "roleplay"');
  }
  if ("classId" in record) {
    text("classId", record.classId);
    text("courseId", record.courseId, true);
  } else if ("courseId" in record) {
    text("courseId", record.courseId);
  }
  if (problems.length > 0) throw new TypeError(`invalid ${kind} record: ${problems.join("; ")}`);
}

/**
 * Lists sort by the instant, not the text: `…00Z` and `…00.500Z` or `+02:00` offsets do
 * not sort correctly as strings. Milliseconds since the epoch are exact for ISO strings.
 */
export function createdMs(createdAt: string): number {
  return Date.parse(createdAt);
}

/**
 * The `data` the databases will give back: JSON, so `undefined` fields vanish and a
 * Date becomes a string. The memory store passes data through here too, so tests that
 * run on memory see what production sees.
 */
function toJsonData(data: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
}

/** Only the record's own fields: the databases keep nothing else, so neither does memory. */
export function courseFields(r: CourseRecord): CourseRecord {
  return { id: r.id, name: r.name, data: toJsonData(r.data), createdAt: r.createdAt };
}

export function classFields(r: ClassRecord): ClassRecord {
  return { id: r.id, courseId: r.courseId, name: r.name, data: toJsonData(r.data), createdAt: r.createdAt };
}

export function assessmentFields(r: AssessmentRecord): AssessmentRecord {
  return { id: r.id, kind: r.kind ?? "oral", classId: r.classId, courseId: r.courseId, name: r.name, data: toJsonData(r.data), createdAt: r.createdAt };
}

/** A course, class or assessment row as both SQL stores read it (SQLite keeps `data` as JSON text, PostgreSQL as JSONB). */
export interface RecordRow {
  id: string;
  kind?: ExamKind;
  course_id?: string | null;
  class_id?: string;
  name: string;
  data: string | Record<string, unknown>;
  created_at: string;
}

/** The SQL stores' row mappers, shared so both dialects give back the same record. */
export const toCourse = (r: RecordRow): CourseRecord => ({
  id: r.id, name: r.name, data: typeof r.data === "string" ? JSON.parse(r.data) as Record<string, unknown> : r.data, createdAt: r.created_at,
});
export const toClass = (r: RecordRow): ClassRecord => ({ ...toCourse(r), courseId: r.course_id as string });
export const toAssessment = (r: RecordRow): AssessmentRecord => ({
  ...toCourse(r), kind: r.kind ?? "oral", classId: r.class_id as string, courseId: r.course_id ?? undefined,
});
