/**
 * The launch record's fields, listed once. Everything that spells a field out is derived
 * from this table: the SQL stores' row type, their INSERT and SELECT column lists and
 * row mappers (launch-rows.ts, both dialects), the record check (launch-records.ts), the
 * CSV export's columns (router/records/csv.ts), the JSON answer and its OpenAPI schema
 * (router/records/routes.ts, api/openapi-components.ts).
 *
 * A new field: a line here, its key in `LaunchRecord` (launch-types.ts; the compiler
 * checks the two agree), a migration step per dialect adding the column
 * (sqlite-migrations.ts, postgres-migrations.ts: released steps never change, so the
 * CREATE TABLE is not derived), and whoever writes records (router/records/launch-record.ts).
 * See docs/stores.md.
 */
import type { LaunchRecord } from "./launch-types.js";
import { isWholeNumber } from "../core/whole-number.js";

type StudentKey = keyof LaunchRecord["student"];

/** What a column holds: text, a whole number, or an instant (ISO 8601 in the record, ms since the epoch in the column). */
export type LaunchFieldType = "text" | "integer" | "instant";

export interface LaunchField {
  /** Where the value sits in a `LaunchRecord`: a top-level key, or a key of `student`. */
  path: readonly [Exclude<keyof LaunchRecord, "student">] | readonly ["student", StudentKey];
  /** The SQL column, the same in both dialects (the named parameter of SQLite's statements too). */
  column: string;
  type: LaunchFieldType;
  /** Undefined in the record when the column is NULL; left out of the JSON answer when empty. Default false. */
  optional?: boolean;
  /** The CSV header. CSV has one column per field, in this table's order. */
  csv: string;
  /** Shown in the JSON answer (and its OpenAPI schema): false for what the URL already names. */
  json: boolean;
  /** The field's JSON Schema, for the OpenAPI document. */
  schema: Record<string, unknown>;
  /** Whether a value is valid (an optional field's undefined is never checked). */
  valid(value: unknown): boolean;
  /** What `checkLaunchRecord` says of an invalid value (fields sharing a message say it once). */
  problem: string;
}

const OUTCOME = /^[a-z_]{1,40}$/;
const SERVED_BY = ["prepared", "on_demand", "coalesced", "platform_host", "none"];
const KINDS = ["oral", "roleplay"];
const VIA = ["link", "lti"];
const isString = (v: unknown) => typeof v === "string";
const oneOf = (values: string[]) => (v: unknown) => values.includes(v as string);
const STUDENT_PROBLEM = "student must have orgInternalId and email strings";

/** In CSV order; the JSON answer and its schema keep the same order (`student` where its first field is). */
export const LAUNCH_FIELDS = [
  {
    path: ["at"], column: "at_ms", type: "instant", csv: "at", json: true, schema: { type: "string", format: "date-time" },
    valid: (v) => typeof v === "string" && !Number.isNaN(Date.parse(v)), problem: "at must be an ISO 8601 timestamp",
  },
  {
    path: ["kind"], column: "kind", type: "text", csv: "kind", json: false, schema: { enum: KINDS },
    valid: oneOf(KINDS), problem: 'kind must be "oral" or "roleplay"',
  },
  {
    path: ["examId"], column: "exam_id", type: "text", csv: "examId", json: false, schema: { type: "string" },
    valid: (v) => typeof v === "string" && v !== "", problem: "examId must be a non-empty string",
  },
  {
    path: ["outcome"], column: "outcome", type: "text", csv: "outcome", json: true,
    schema: { type: "string", examples: ["redirected", "waiting", "forbidden", "launch_limited", "failure_backoff", "class_full", "platform_failed", "platform_timeout", "platform_busy", "platform_unavailable", "wait_exceeded", "client_gone"] },
    valid: (v) => typeof v === "string" && OUTCOME.test(v), problem: "outcome must be a lower-case outcome name",
  },
  {
    path: ["status"], column: "status", type: "integer", csv: "status", json: true, schema: { type: "integer", description: "The HTTP status the student's browser got." },
    valid: (v) => isWholeNumber(v, 100, 599), problem: "status must be an HTTP status",
  },
  {
    path: ["servedBy"], column: "served_by", type: "text", csv: "servedBy", json: true, schema: { enum: SERVED_BY },
    valid: oneOf(SERVED_BY), problem: "servedBy must be a known source",
  },
  {
    path: ["via"], column: "via", type: "text", csv: "via", json: true, schema: { enum: VIA },
    valid: oneOf(VIA), problem: 'via must be "link" or "lti"',
  },
  {
    path: ["student", "orgInternalId"], column: "student_id", type: "text", csv: "orgInternalId", json: true, schema: { type: "string" },
    valid: isString, problem: STUDENT_PROBLEM,
  },
  {
    path: ["student", "email"], column: "student_email", type: "text", csv: "email", json: true, schema: { type: "string" },
    valid: isString, problem: STUDENT_PROBLEM,
  },
  {
    path: ["instance"], column: "instance", type: "text", optional: true, csv: "instance", json: true,
    schema: { type: "string", description: "The fleet instance that answered (fleet mode only)." },
    valid: isString, problem: "instance must be a string",
  },
] as const satisfies readonly LaunchField[];

// Every key of LaunchRecord (and of its student) has a field: a key added to the type and
// not here does not compile.
type Listed = (typeof LAUNCH_FIELDS)[number]["path"];
type Missing = Exclude<Exclude<keyof LaunchRecord, "student">, Listed[0]> | Exclude<StudentKey, Extract<Listed, readonly ["student", StudentKey]>[1]>;
const everyFieldListed: [Missing] extends [never] ? true : Missing = true;
void everyFieldListed;

export type LaunchColumn = (typeof LAUNCH_FIELDS)[number]["column"];

/** The field's value in a record (undefined when absent; a record whose `student` is no object has none there). */
export function valueOf(record: LaunchRecord, field: LaunchField): unknown {
  if (field.path.length === 1) return record[field.path[0]];
  const student = record.student as Partial<LaunchRecord["student"]> | null | undefined;
  return typeof student === "object" && student !== null ? student[field.path[1]] : undefined;
}

/** Builds a record field by field (the SQL stores' row mapper). */
export function setValue(record: Record<string, unknown>, field: LaunchField, value: unknown): void {
  if (field.path.length === 1) {
    record[field.path[0]] = value;
    return;
  }
  const student = (record.student ??= {}) as Record<string, unknown>;
  student[field.path[1]] = value;
}

/**
 * The launch record as the JSON answer shows it (the OpenAPI document's `LaunchRecord`):
 * the `json` fields in the table's order, `student`'s fields nested where its first one
 * is; required unless optional.
 */
export function launchRecordSchema(): Record<string, unknown> {
  const required: string[] = [];
  const properties: Record<string, Record<string, unknown>> = {};
  for (const field of LAUNCH_FIELDS) {
    if (!field.json) continue;
    const optional = "optional" in field && field.optional;
    const schema = structuredClone(field.schema) as Record<string, unknown>;
    if (field.path.length === 1) {
      properties[field.path[0]] = schema;
      if (!optional) required.push(field.path[0]);
      continue;
    }
    const [group, key] = field.path;
    const nested = (properties[group] ??= { type: "object", required: [], properties: {} }) as { required: string[]; properties: Record<string, Record<string, unknown>> };
    nested.properties[key] = schema;
    if (!optional) nested.required.push(key);
    if (!required.includes(group)) required.push(group);
  }
  return { type: "object", description: "One launch outcome of one student. Never a token or a key.", required, properties };
}
