/**
 * The score outbox's worker: claims due scores from the store (leased, so a crash hands
 * them to the next look, here or on another instance), posts each (`send`, ags.ts) with
 * at most `concurrency` in flight, and settles it: sent, retried after an exponential
 * backoff (`firstRetryMs` doubling up to `maxRetryMs`, ±20 % jitter, so a fleet does not
 * retry in step), or failed (a refusal, or `maxAttempts` spent). Nothing here runs on a
 * launch's path: a launch only writes its entry and wakes the worker.
 */
import type { Logger } from "../../core/logger.js";
import type { LtiScoreRecord, OralStoreLtiGradebook } from "../../store/lti-gradebook-types.js";
import { SendFailure } from "./ags.js";
import type { GradebookSettings } from "./options.js";

export type OutboxSettings = Pick<GradebookSettings, "pollMs" | "batchSize" | "concurrency" | "leaseMs" | "firstRetryMs" | "maxRetryMs" | "maxAttempts">;

/** The delay before attempt `attempts + 1`, ms. */
export function backoffMs(attempts: number, s: Pick<OutboxSettings, "firstRetryMs" | "maxRetryMs">, random = Math.random): number {
  const base = Math.min(s.maxRetryMs, s.firstRetryMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class ScoreOutbox {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** Scores posted, retried, given up, since start (for the bench and the logs). */
  readonly counts = { sent: 0, retried: 0, failed: 0 };

  constructor(
    private readonly store: OralStoreLtiGradebook,
    private readonly send: (r: LtiScoreRecord) => Promise<void>,
    private readonly settings: OutboxSettings,
    private readonly logger: Logger,
  ) {}

  /** Starts polling (idempotent); the first look is at once, for scores a previous run left. */
  start(): void {
    if (this.closed || this.timer) return;
    this.timer = setInterval(() => this.kick(), this.settings.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for due scores now (a new one was queued); a look in progress is followed by another. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().then(() => undefined, (error: unknown) => {
      this.logger.warn({ event: "lti_outbox_error", error: (error as Error)?.message }, "the score outbox could not read the store; it tries again at the next look");
    }).finally(() => {
      this.running = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Claims and posts due scores until none is due; answers how many were handled. */
  async drain(): Promise<number> {
    let handled = 0;
    for (;;) {
      const batch = await this.store.claimLtiScores(Date.now(), this.settings.batchSize, this.settings.leaseMs);
      if (batch.length === 0 || this.closed) return handled;
      let next = 0;
      const worker = async () => {
        while (next < batch.length && !this.closed) await this.post(batch[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(this.settings.concurrency, batch.length) }, worker));
      handled += batch.length;
    }
  }

  private async post(r: LtiScoreRecord): Promise<void> {
    const attempts = r.attempts + 1;
    const where = { event: "lti_score", examId: r.key.examId, kind: r.key.kind, issuer: r.key.issuer, activity: r.score.activityProgress, attempts };
    try {
      await this.send(r);
      this.counts.sent += 1;
      await this.store.settleLtiScore(r.id, { state: "sent", attempts, nextAtMs: Date.now(), sentAt: new Date().toISOString() });
      this.logger.debug({ ...where, outcome: "sent" }, "a score was posted to the LMS gradebook");
    } catch (error) {
      const failure = error instanceof SendFailure ? error : new SendFailure(String((error as Error)?.message ?? error), true);
      const giveUp = !failure.retry || attempts >= this.settings.maxAttempts;
      if (giveUp) this.counts.failed += 1;
      else this.counts.retried += 1;
      const lastError = failure.message.slice(0, 500);
      await this.store.settleLtiScore(r.id, giveUp
        ? { state: "failed", attempts, nextAtMs: Date.now(), lastError }
        : { state: "pending", attempts, nextAtMs: Date.now() + backoffMs(attempts, this.settings), lastError });
      this.logger[giveUp ? "warn" : "info"]({ ...where, outcome: giveUp ? "failed" : "retry", error: lastError }, giveUp ? "a score could not be posted to the LMS gradebook: given up" : "a score could not be posted to the LMS gradebook yet: it is retried");
    }
  }

  /** Stops looking; a post in flight finishes (its entry is settled), the rest stay queued for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
