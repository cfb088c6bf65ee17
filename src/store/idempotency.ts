/**
 * The rules of idempotency records that every backend shares: checking input, deciding
 * what a found record means for a new caller, and the memory implementation (the
 * databases do the same with a UNIQUE (organization, user, key) constraint; see
 * sqlite.ts, postgres.ts).
 */
import { isText } from "../core/text.js";
import { isWholeNumber } from "../core/whole-number.js";
import {
  isOrganizationId, IDEMPOTENCY_PENDING_MS, IDEMPOTENCY_TTL_MS,
  type IdempotencyBegin, type IdempotencyBeginInput, type IdempotencyCompleteInput, type IdempotencyKey, type OralStoreIdempotency,
} from "./types.js";

/** A TypeError, like `checkRecord`: a bad key here is a bug in the caller. */
export function checkIdempotencyKey(input: IdempotencyKey, extra: { bodyHash?: unknown; status?: unknown } = {}): void {
  const problems: string[] = [];
  const text = (field: string, value: unknown) => {
    if (!isText(value)) problems.push(`${field} must be a non-empty string`);
  };
  if (typeof input !== "object" || input === null) throw new TypeError("idempotency input must be an object");
  if (!isOrganizationId(input.org)) problems.push("org must be an organization id (1-64 letters, digits, _ . or -)");
  text("user", input.user);
  text("key", input.key);
  if ("bodyHash" in extra) text("bodyHash", extra.bodyHash);
  if ("status" in extra && !isWholeNumber(extra.status, 100, 599)) {
    problems.push("status must be an HTTP status (100-599)");
  }
  if (problems.length > 0) throw new TypeError(`invalid idempotency record: ${problems.join("; ")}`);
}

/** The stored row, as every backend reads it back. */
export interface IdempotencyRow {
  bodyHash: string;
  state: "pending" | "done";
  status: number | null;
  /** JSON text of the recorded body (text, not JSONB: replayed byte for byte). */
  body: string | null;
  startedMs: number;
}

/** Rows begun before this instant are gone: expired records, and pending ones of a dead call. */
export function expiredBefore(now: number): { record: number; pending: number } {
  return { record: now - IDEMPOTENCY_TTL_MS, pending: now - IDEMPOTENCY_PENDING_MS };
}

/** What a caller who lost the race for a key is told about the record that won. */
export function answerFor(row: IdempotencyRow, bodyHash: string): IdempotencyBegin {
  if (row.bodyHash !== bodyHash) return { state: "mismatch" };
  if (row.state === "pending") return { state: "pending" };
  return { state: "done", status: row.status as number, body: row.body === null ? null : JSON.parse(row.body) };
}

/** JSON text of a body to record; `undefined` (no body) is recorded as null. */
export function bodyText(body: unknown): string {
  return JSON.stringify(body) ?? "null";
}

/** In-process records: atomic because every method runs synchronously after its await. */
export function memoryIdempotency(ready: () => Promise<unknown>): OralStoreIdempotency {
  const rows = new Map<string, IdempotencyRow>();
  const id = (k: IdempotencyKey) => JSON.stringify([k.org, k.user, k.key]);
  return {
    async beginIdempotent(input: IdempotencyBeginInput) {
      checkIdempotencyKey(input, { bodyHash: input.bodyHash });
      await ready();
      const now = input.now ?? Date.now();
      const before = expiredBefore(now);
      for (const [k, row] of rows) {
        if (row.startedMs < before.record) rows.delete(k);
      }
      const found = rows.get(id(input));
      if (found && !(found.state === "pending" && found.startedMs < before.pending)) return answerFor(found, input.bodyHash);
      rows.set(id(input), { bodyHash: input.bodyHash, state: "pending", status: null, body: null, startedMs: now });
      return { state: "new" };
    },
    async completeIdempotent(input: IdempotencyCompleteInput) {
      checkIdempotencyKey(input, { status: input.status });
      await ready();
      const row = rows.get(id(input));
      if (row?.state !== "pending") return;
      rows.set(id(input), { ...row, state: "done", status: input.status, body: bodyText(input.body) });
    },
    async abandonIdempotent(input: IdempotencyKey) {
      checkIdempotencyKey(input);
      await ready();
      if (rows.get(id(input))?.state === "pending") rows.delete(id(input));
    },
  };
}
