/**
 * A launch record as the SQL stores keep it (one column per field, the time in
 * milliseconds) and back, and the column lists of their statements: all derived from
 * the field table (launch-fields.ts) and shared by SQLite and PostgreSQL, so both give
 * back the same record.
 */
import type { LaunchQuery, LaunchRecord } from "./launch-types.js";
import { cursorOf } from "./launch-records.js";
import { LAUNCH_FIELDS, setValue, valueOf, type LaunchColumn, type LaunchFieldType } from "./launch-fields.js";

/** A row as read back: every field's column, and `seq` (PostgreSQL gives BIGINTs as text unless cast). */
export type LaunchRow = { seq: number | string } & Record<LaunchColumn, string | number | null>;

/** A record's columns (keyed by column name) and its organization, as written. */
export type LaunchColumns = { org: string } & Record<LaunchColumn, string | number | null>;

/** The columns in the table's order: INSERT and SELECT lists. */
export const LAUNCH_COLUMNS = LAUNCH_FIELDS.map((f) => f.column).join(", ");
/** SQLite's named parameters, one per column. */
export const LAUNCH_PARAMS = LAUNCH_FIELDS.map((f) => `@${f.column}`).join(", ");
/** PostgreSQL's SELECT list: BIGINTs read as numbers (float8 is exact for ms and sequence numbers). */
export const LAUNCH_PG_SELECT = LAUNCH_FIELDS.map((f) => (f.type === "instant" ? `${f.column}::float8 AS ${f.column}` : f.column)).join(", ");

const PG_ARRAY: Record<LaunchFieldType, string> = { text: "text[]", integer: "int[]", instant: "bigint[]" };
/** PostgreSQL's batch insert: one array parameter per column from `$first`, zipped back into rows by unnest. */
export function launchPgArrays(first: number): string {
  return LAUNCH_FIELDS.map((f, i) => `$${first + i}::${PG_ARRAY[f.type]}`).join(", ");
}

export function launchColumns(org: string, record: LaunchRecord): LaunchColumns {
  const row: Record<string, string | number | null> = { org };
  for (const field of LAUNCH_FIELDS) {
    const value = valueOf(record, field) as string | number | undefined;
    row[field.column] = value === undefined ? null : field.type === "instant" ? Date.parse(value as string) : value;
  }
  return row as LaunchColumns;
}

/** PostgreSQL's batch: per column, its values across the rows (the unnest arrays, in the table's order). */
export function launchColumnArrays(rows: LaunchColumns[]): (string | number | null)[][] {
  return LAUNCH_FIELDS.map((f) => rows.map((row) => row[f.column]));
}

export function toLaunchRecord(row: LaunchRow): LaunchRecord {
  const record: Record<string, unknown> = {};
  for (const field of LAUNCH_FIELDS) {
    const value = row[field.column];
    if (value === null && "optional" in field && field.optional) continue;
    setValue(record, field, field.type === "instant" ? new Date(Number(value)).toISOString() : field.type === "integer" ? Number(value) : value);
  }
  return record as unknown as LaunchRecord;
}

export const positionOf = (row: LaunchRow) => ({ atMs: Number(row.at_ms), seq: Number(row.seq) });

/** The list's parameters: unset filters as NULL, one row past the page. */
export function listParams(org: string, query: LaunchQuery) {
  const cursor = cursorOf(query);
  return {
    org, kind: query.kind, examId: query.examId, outcome: query.outcome ?? null, student: query.student ?? null,
    cursorAt: cursor?.atMs ?? null, cursorSeq: cursor?.seq ?? null, limit: query.limit + 1,
  };
}
