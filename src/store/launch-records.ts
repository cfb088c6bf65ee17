/**
 * What every backend does to launch records the same way: check them before writing,
 * and the page cursor. A cursor is the last row's (time, sequence) pair, opaque to the
 * client: newest-first pages by (at, seq) stay stable while new launches are appended.
 */
import type { LaunchQuery, LaunchRecord } from "./launch-types.js";
import { LAUNCH_FIELDS, valueOf } from "./launch-fields.js";

/** A TypeError, like `checkRecord`: a bad record is a bug in the caller. Each field's rule is in the field table. */
export function checkLaunchRecord(record: LaunchRecord): void {
  if (typeof record !== "object" || record === null) throw new TypeError("launch record must be an object");
  const problems = new Set<string>();
  for (const field of LAUNCH_FIELDS) {
    const value = valueOf(record, field);
    if (value === undefined && "optional" in field && field.optional) continue;
    if (!field.valid(value)) problems.add(field.problem);
  }
  if (problems.size > 0) throw new TypeError(`invalid launch record: ${[...problems].join("; ")}`);
}

export interface CursorPosition {
  atMs: number;
  seq: number;
}

function encodeCursor(position: CursorPosition): string {
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
