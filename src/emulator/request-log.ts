/**
 * The log behind `emulator.requests`: what arrived on the API, for test assertions.
 *
 * Bounded to the last `limit` entries (default 10 000) so a 100k-request benchmark keeps
 * flat memory. Entries hold the method, path, env, status, arrival time and parsed body;
 * never a header, so never the key.
 */
import type { ReceivedRequest } from "./types.js";

export class RequestLog {
  private entries: ReceivedRequest[] = [];

  constructor(private readonly limit: number) {}

  /** Adds an entry; the caller sets `status` on the same object once it answers. */
  add(entry: ReceivedRequest): ReceivedRequest {
    if (this.limit === 0) return entry;
    this.entries.push(entry);
    // Trim in batches (at twice the limit): amortised O(1) instead of a shift per request.
    if (this.entries.length >= this.limit * 2) this.entries = this.entries.slice(-this.limit);
    return entry;
  }

  /** Oldest first; a copy, so callers can keep it while requests continue. */
  list(): ReceivedRequest[] {
    const start = Math.max(0, this.entries.length - this.limit);
    return this.entries.slice(start).map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
  }
}
