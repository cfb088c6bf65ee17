/**
 * Writes launch records off the request path. A launch only pushes its record into a
 * bounded buffer (no await, no I/O); the buffer is written in batches, every `flushMs`
 * or as soon as `batchSize` records wait, one write at a time. While the store fails,
 * records wait in the buffer and are retried every `flushMs`; what does not fit is
 * dropped (an exam-day storm must not pile memory up behind a dead database). The outage
 * is logged once when it starts, and once more with the count of lost records when the
 * store answers again. Also runs the retention purge.
 */
import type { Logger } from "../../core/logger.js";
import type { LaunchRecord, OralStore } from "../../store/types.js";
import type { LaunchRecordSettings } from "./settings.js";

interface Pending { org: string; record: LaunchRecord }

export interface RecorderClock {
  /** Milliseconds since the epoch. Default `Date.now`. */
  now(): number;
}

export class LaunchRecorder {
  private buffer: Pending[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private purgeTimer: NodeJS.Timeout | undefined;
  /** Records lost since the outage began (dropped batches and overflow); undefined while the store answers. */
  private lost: number | undefined;
  private closed = false;

  constructor(
    private readonly store: OralStore,
    private readonly settings: LaunchRecordSettings,
    private readonly logger: Logger,
    private readonly clock: RecorderClock = { now: Date.now },
  ) {
    // The first purge soon after start (not at once: the store may still be opening), then every purgeEveryMs.
    const schedule = (ms: number) => {
      this.purgeTimer = setTimeout(() => {
        void this.purge().catch(() => undefined).finally(() => { if (!this.closed) schedule(settings.purgeEveryMs); });
      }, ms);
      this.purgeTimer.unref();
    };
    schedule(Math.min(settings.purgeEveryMs, 60_000));
  }

  /** The hot path: synchronous, never throws, never waits. */
  record(org: string, record: LaunchRecord): void {
    if (this.closed) return;
    if (this.buffer.length >= this.settings.bufferSize) {
      this.lose(1, "the launch record buffer is full");
      return;
    }
    this.buffer.push({ org, record });
    if (this.buffer.length >= this.settings.batchSize && this.lost === undefined) void this.startWrite();
    else if (this.timer === undefined && this.writing === undefined) this.later();
  }

  /** Records waiting to be written. */
  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Writes everything recorded so far (an instructor's list then reads its own
   * launches), or stops at the first failed write. Never rejects.
   */
  async flush(): Promise<void> {
    if (this.writing) await this.writing;
    while (this.buffer.length > 0) {
      if (!(await this.startWrite())) return;
    }
  }

  /** Deletes records older than the retention; resolves to how many went. */
  async purge(): Promise<number> {
    const purged = await this.store.purgeLaunches(this.clock.now() - this.settings.retentionMs);
    if (purged > 0) this.logger.info({ event: "launch_records_purged", purged }, "launch records past their retention were deleted");
    return purged;
  }

  /** Refuses new records, stops the purge and writes what waits (once; a failed write is lost and logged). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.purgeTimer);
    await this.flush();
    clearTimeout(this.timer);
  }

  /** One batch at a time: resolves true when it was written (or there was nothing to write). */
  private startWrite(): Promise<boolean> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) return this.writing.then(() => true);
    if (this.buffer.length === 0) return Promise.resolve(true);
    const batch = this.buffer.splice(0, this.settings.batchSize);
    const written = this.write(batch);
    this.writing = written.then(() => undefined);
    return written.finally(() => {
      this.writing = undefined;
      if (this.closed || this.buffer.length === 0 || this.timer !== undefined) return;
      if (this.buffer.length >= this.settings.batchSize && this.lost === undefined) void this.startWrite();
      else this.later();
    });
  }

  private later(): void {
    this.timer = setTimeout(() => void this.startWrite(), this.settings.flushMs);
    this.timer.unref();
  }

  /**
   * A failed batch goes back to the front of the buffer, to be tried again after
   * `flushMs` (a database restart loses nothing), as far as the buffer has room: the
   * rest is lost and counted.
   */
  private async write(batch: Pending[]): Promise<boolean> {
    const byOrg = new Map<string, LaunchRecord[]>();
    for (const { org, record } of batch) (byOrg.get(org) ?? byOrg.set(org, []).get(org)!).push(record);
    const failed: Pending[] = [];
    let error: unknown;
    for (const [org, records] of byOrg) {
      try {
        await this.store.addLaunches(org, records);
      } catch (e) {
        failed.push(...records.map((record) => ({ org, record })));
        error ??= e;
      }
    }
    if (failed.length > 0) {
      const room = Math.max(0, this.settings.bufferSize - this.buffer.length);
      this.buffer.unshift(...failed.slice(0, room));
      this.lose(failed.length - room, `the store refused launch records (${(error as Error)?.message ?? String(error)})`);
      return false;
    }
    if (this.lost !== undefined) {
      this.logger.info({ event: "launch_records_restored", lost: this.lost }, `launch records are written again; ${this.lost} were lost meanwhile`);
      this.lost = undefined;
    }
    return true;
  }

  private lose(count: number, why: string): void {
    if (this.lost === undefined) {
      // Counted from the first failure, so the recovery line says what the outage cost.
      this.lost = count;
      this.logger.warn({ event: "launch_records_lost", lost: count, reason: why }, `${why}: launch records wait in memory and are retried; past ${this.settings.bufferSize} waiting they are dropped`);
    } else this.lost += count;
  }
}
