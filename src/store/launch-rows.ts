/**
 * A launch record as the SQL stores keep it (one column per field, the time in
 * milliseconds) and back: shared by SQLite and PostgreSQL so both give back the same record.
 */
import type { LaunchQuery, LaunchRecord } from "./launch-types.js";
import { cursorOf } from "./launch-records.js";

export interface LaunchRow {
  seq: number | string;
  kind: LaunchRecord["kind"];
  exam_id: string;
  at_ms: number | string;
  outcome: string;
  status: number;
  served_by: LaunchRecord["servedBy"];
  via: LaunchRecord["via"];
  student_id: string;
  student_email: string;
  instance: string | null;
}

export function launchColumns(org: string, r: LaunchRecord) {
  return {
    org, kind: r.kind, examId: r.examId, atMs: Date.parse(r.at), outcome: r.outcome, status: r.status,
    servedBy: r.servedBy, via: r.via, studentId: r.student.orgInternalId, studentEmail: r.student.email, instance: r.instance ?? null,
  };
}

export function toLaunchRecord(row: LaunchRow): LaunchRecord {
  const record: LaunchRecord = {
    at: new Date(Number(row.at_ms)).toISOString(), kind: row.kind, examId: row.exam_id, outcome: row.outcome, status: row.status,
    servedBy: row.served_by, via: row.via, student: { orgInternalId: row.student_id, email: row.student_email },
  };
  if (row.instance !== null) record.instance = row.instance;
  return record;
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
