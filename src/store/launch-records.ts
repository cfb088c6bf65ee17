/**
 * What every backend does to launch records the same way: check them before writing,
 * and the page cursor. A cursor is the last row's (time, sequence) pair, opaque to the
 * client: newest-first pages by (at, seq) stay stable while new launches are appended.
 */
import type { LaunchQuery, LaunchRecord } from "./launch-types.js";

const OUTCOME = /^[a-z_]{1,40}$/;
const SERVED_BY = new Set(["prepared", "on_demand", "coalesced", "platform_host", "none"]);

/** A TypeError, like `checkRecord`: a bad record is a bug in the caller. */
export function checkLaunchRecord(record: LaunchRecord): void {
  const problems: string[] = [];
  if (typeof record !== "object" || record === null) throw new TypeError("launch record must be an object");
  if (typeof record.at !== "string" || Number.isNaN(Date.parse(record.at))) problems.push("at must be an ISO 8601 timestamp");
  if (record.kind !== "oral" && record.kind !== "roleplay") problems.push('kind must be "oral" or "roleplay"');
  if (typeof record.examId !== "string" || record.examId === "") problems.push("examId must be a non-empty string");
  if (typeof record.outcome !== "string" || !OUTCOME.test(record.outcome)) problems.push("outcome must be a lower-case outcome name");
  if (!Number.isInteger(record.status) || record.status < 100 || record.status > 599) problems.push("status must be an HTTP status");
  if (!SERVED_BY.has(record.servedBy)) problems.push("servedBy must be a known source");
  if (record.via !== "link" && record.via !== "lti") problems.push('via must be "link" or "lti"');
  const s = record.student;
  if (typeof s !== "object" || s === null || typeof s.orgInternalId !== "string" || typeof s.email !== "string") {
    problems.push("student must have orgInternalId and email strings");
  }
  if (record.instance !== undefined && typeof record.instance !== "string") problems.push("instance must be a string");
  if (problems.length > 0) throw new TypeError(`invalid launch record: ${problems.join("; ")}`);
}

export interface CursorPosition {
  atMs: number;
  seq: number;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(`${position.atMs}.${position.seq}`).toString("base64url");
}

/** Undefined when `cursor` is not one this module made. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) return undefined;
  const position = { atMs: Number(match[1]), seq: Number(match[2]) };
  return encodeCursor(position) === cursor ? position : undefined;
}

/** The query's cursor as a position (or none); a malformed one is the caller's bug. */
export function cursorOf(query: LaunchQuery): CursorPosition | undefined {
  if (query.cursor === undefined) return undefined;
  const position = decodeCursor(query.cursor);
  if (!position) throw new TypeError("invalid launch cursor");
  return position;
}

/** Rows read one past the page: whether another page follows, without a count. */
export function pageOf<Row>(rows: Row[], limit: number, positionOf: (row: Row) => CursorPosition, toRecord: (row: Row) => LaunchRecord) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { records: page.map(toRecord), nextCursor: more ? encodeCursor(positionOf(page.at(-1)!)) : undefined };
}
