/**
 * One table of platform records (courses, classes, oral assessments, role-plays), kept in
 * memory in creation order. Records are stored as the caller sent them (after schema
 * parsing, which keeps unknown fields) plus the platform's own fields (`_id`,
 * `createdAt`, `updatedAt`, parent ids), which a caller can never overwrite. Each record
 * remembers its organization so that keys of another organization get 403.
 */
import { randomBytes } from "node:crypto";

export type JsonRecord = Record<string, unknown>;

export interface Owned {
  org: string;
  record: JsonRecord;
}

// Mongo-style ids (24 hex chars): 4 bytes of seconds, 5 random bytes per process, a
// 3-byte counter. Unique (across environments too), sortable by creation, and cheap.
const processBytes = randomBytes(5).toString("hex");
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(Date.now() / 1000) % 0x100000000;
  return seconds.toString(16).padStart(8, "0") + processBytes + counter.toString(16).padStart(6, "0");
}

export class RecordTable {
  private readonly rows = new Map<string, Owned>();

  /** Stores `body` with a new `_id` and the platform fields in `own` (which win over the body). */
  insert(org: string, body: JsonRecord, own: JsonRecord = {}): JsonRecord {
    const now = new Date().toISOString();
    const _id = newId();
    const record: JsonRecord = { _id, ...body, ...own, createdAt: now, updatedAt: now };
    record._id = _id; // first in key order, and never the body's
    this.rows.set(_id, { org, record });
    return record;
  }

  get(id: string): Owned | undefined {
    return this.rows.get(id);
  }

  list(keep: (record: JsonRecord, org: string) => boolean): JsonRecord[] {
    const out: JsonRecord[] = [];
    for (const { org, record } of this.rows.values()) if (keep(record, org)) out.push(record);
    return out;
  }

  /** Merges `changes` (a partial update) and `own` (platform fields) into the record. */
  update(id: string, changes: JsonRecord, own: JsonRecord = {}): JsonRecord | undefined {
    const owned = this.rows.get(id);
    if (!owned) return undefined;
    const { _id, createdAt } = owned.record;
    owned.record = { ...owned.record, ...changes, ...own, _id, createdAt, updatedAt: new Date().toISOString() };
    return owned.record;
  }

  delete(id: string): boolean {
    return this.rows.delete(id);
  }

  /** Deletes every record `match` selects; returns their ids (for cascades). */
  deleteWhere(match: (record: JsonRecord) => boolean): string[] {
    const gone: string[] = [];
    for (const [id, { record }] of this.rows) {
      if (match(record)) {
        this.rows.delete(id);
        gone.push(id);
      }
    }
    return gone;
  }

  /** Copies of the records, each tagged with its organization's id as `org`. */
  snapshot(): JsonRecord[] {
    return [...this.rows.values()].map((o) => ({ ...structuredClone(o.record), org: o.org }));
  }

  clear(): void {
    this.rows.clear();
  }
}
