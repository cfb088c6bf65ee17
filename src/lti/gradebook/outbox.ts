/**
 * The score outbox's worker: claims due scores from the store (leased, so a crash hands
 * them to the next look, here or on another instance), posts each (`send`, ags.ts) with
 * at most `concurrency` in flight, and settles it: sent, retried after an exponential
 * backoff (`firstRetryMs` doubling up to `maxRetryMs`, ±20 % jitter, so a fleet does not
 * retry in step), or failed (a refusal, or `maxAttempts` spent). Nothing here runs on a
 * launch's path: a launch only writes its entry and wakes the worker.
 *
 * Workers are shared fairly between LMSs (lms-gate.ts): a claim skips every LMS at its
 * share (`perLmsConcurrency`), paused (`Retry-After`) or with its breaker open, and a
 * worker is claimed for again as soon as its post ends, so a hanging LMS holds at most its
 * share of the workers and never the others' turn.
 */
import type { Logger } from "../../core/logger.js";
import { ltiLaneOf, type LtiScoreRecord, type OralStoreLtiGradebook } from "../../store/lti-gradebook-types.js";
import { SendFailure } from "./send-failure.js";
import type { SendOutcome } from "./ags.js";
import type { LmsGate } from "./lms-gate.js";
import type { GradebookSettings } from "../options/gradebook-options.js";

export type OutboxSettings = Pick<GradebookSettings, "pollMs" | "batchSize" | "concurrency" | "leaseMs" | "firstRetryMs" | "maxRetryMs" | "maxAttempts" | "retentionDays">;

const DAY_MS = 86_400_000;
/** How often settled scores past the retention are purged, ms, and how many rows at a time. */
const PURGE_EVERY_MS = 3_600_000;
const PURGE_ROWS = 5_000;

/** The delay before attempt `attempts + 1`, ms. */
export function backoffMs(attempts: number, s: Pick<OutboxSettings, "firstRetryMs" | "maxRetryMs">, random = Math.random): number {
  const base = Math.min(s.maxRetryMs, s.firstRetryMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class ScoreOutbox {
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly posts = new Set<Promise<void>>();
  private handled = 0;
  private purgedAt = 0;
  /** Scores posted, retried, given up, since start (for the bench and the logs). */
  readonly counts = { sent: 0, retried: 0, failed: 0 };

  constructor(
    private readonly store: OralStoreLtiGradebook,
    private readonly send: (r: LtiScoreRecord) => Promise<SendOutcome | void>,
    private readonly settings: OutboxSettings,
    private readonly logger: Logger,
    private readonly gate: LmsGate,
  ) {}

  /** Starts polling (idempotent); the first look is at once, for scores a previous run left. */
  start(): void {
    if (this.closed || this.timer) return;
    this.timer = setInterval(() => {
      this.kick();
      void this.purge();
    }, this.settings.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for due scores now (a new one was queued, a worker is free); a look in progress is followed by another. */
  kick(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump().then(() => undefined, (error: unknown) => {
      this.logger.warn({ event: "lti_outbox_error", error: (error as Error)?.message }, "the score outbox could not read the store; it tries again at the next look");
    }).finally(() => {
      this.pumping = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Claims and posts due scores until none is due and every post ended; answers how many were handled. */
  async drain(): Promise<number> {
    const before = this.handled;
    this.kick();
    while (this.pumping || this.posts.size > 0) await Promise.race([...(this.pumping ? [this.pumping] : []), ...this.posts]);
    return this.handled - before;
  }

  /** Fills the free workers with due scores of the LMSs that may take one now. */
  private async pump(): Promise<void> {
    for (;;) {
      const free = this.settings.concurrency - this.posts.size;
      if (free <= 0 || this.closed) return;
      const batch = await this.store.claimLtiScores(Date.now(), Math.min(free, this.settings.batchSize), this.settings.leaseMs, this.gate.blocked());
      if (batch.length === 0) return;
      for (const r of batch) {
        const lane = ltiLaneOf(r);
        // More of one LMS than its share in one claim: the rest go back, due at once (the claims skip that LMS meanwhile);
        // an LMS paused or broken meanwhile: due when it reopens.
        if (this.closed || !this.gate.hasRoom(lane)) {
          await this.putBack(r, this.gate.reopensAt(lane) ?? Date.now());
          continue;
        }
        this.gate.begin(lane);
        const post = this.post(r, lane).catch((error: unknown) => {
          this.logger.warn({ event: "lti_outbox_error", error: (error as Error)?.message }, "a score's outcome could not be written to the store; its lease runs out and it is posted again");
        }).finally(() => {
          this.gate.end(lane);
          this.posts.delete(post);
          this.handled += 1;
          this.kick();
        });
        this.posts.add(post);
      }
    }
  }

  /** A claimed score not posted now: pending again from `atMs`, its attempts and last error unchanged. */
  private putBack(r: LtiScoreRecord, atMs: number): Promise<void> {
    return this.store.settleLtiScore(r.id, { state: "pending", attempts: r.attempts, nextAtMs: atMs, ...(r.lastError ? { lastError: r.lastError } : {}) });
  }

  private async post(r: LtiScoreRecord, lane: string): Promise<void> {
    const admitted = await this.gate.admit(lane);
    if (!admitted.ok) {
      this.handled -= 1;
      await this.defer(lane, admitted.untilMs);
      return this.putBack(r, admitted.untilMs);
    }
    const attempts = r.attempts + 1;
    const where = { event: "lti_score", examId: r.key.examId, kind: r.key.kind, issuer: r.key.issuer, activity: r.score.activityProgress, attempts };
    let failure: SendFailure | undefined;
    let outcome: SendOutcome | void = undefined;
    try {
      outcome = await this.send(r);
    } catch (error) {
      failure = error instanceof SendFailure ? error : new SendFailure(String((error as Error)?.message ?? error), true);
    }
    const pausedUntil = await this.gate.settle(lane, failure, admitted.probe);
    if (pausedUntil !== undefined) await this.defer(lane, pausedUntil);
    if (!failure) {
      this.counts.sent += 1;
      const note = outcome?.note;
      await this.store.settleLtiScore(r.id, { state: "sent", attempts, nextAtMs: Date.now(), sentAt: new Date().toISOString(), ...(note ? { note } : {}) });
      this.logger.debug({ ...where, outcome: note?.unchanged ? "unchanged" : "sent", handGrade: note?.handGrade !== undefined }, note?.unchanged ? "the LMS had this grade already: nothing posted" : "a score was posted to the LMS gradebook");
      return;
    }
    const giveUp = !failure.retry || attempts >= this.settings.maxAttempts;
    if (giveUp) this.counts.failed += 1;
    else this.counts.retried += 1;
    const lastError = failure.message.slice(0, 500);
    await this.store.settleLtiScore(r.id, giveUp
      ? { state: "failed", attempts, nextAtMs: Date.now(), lastError }
      : { state: "pending", attempts, nextAtMs: Math.max(Date.now() + backoffMs(attempts, this.settings), pausedUntil ?? 0), lastError });
    this.logger[giveUp ? "warn" : "info"]({ ...where, outcome: giveUp ? "failed" : "retry", error: lastError }, giveUp ? "a score could not be posted to the LMS gradebook: given up" : "a score could not be posted to the LMS gradebook yet: it is retried");
  }

  /**
   * The LMS is paused or broken until `untilMs`: its waiting scores are due then, not now,
   * in the store (every instance's claims pass over them, and none walks them meanwhile).
   */
  private async defer(lane: string, untilMs: number): Promise<void> {
    await this.store.deferLtiScores(lane, untilMs).catch((error: unknown) => {
      this.logger.warn({ event: "lti_outbox_error", error: (error as Error)?.message }, "a paused LMS's scores could not be deferred in the store; the claims skip that LMS meanwhile");
    });
  }

  /** Deletes scores sent, given up or superseded more than `retentionDays` ago (at most once per `PURGE_EVERY_MS`); answers how many went. */
  async purge(now = Date.now()): Promise<number> {
    if (now - this.purgedAt < PURGE_EVERY_MS) return 0;
    this.purgedAt = now;
    const before = now - this.settings.retentionDays * DAY_MS;
    let purged = 0;
    try {
      for (let n = PURGE_ROWS; n === PURGE_ROWS && !this.closed; purged += n) n = await this.store.purgeLtiScores(before, PURGE_ROWS);
    } catch (error) {
      this.logger.warn({ event: "lti_scores_purge", error: (error as Error)?.message }, "settled scores past their retention could not be purged; the next look tries again");
    }
    if (purged > 0) this.logger.info({ event: "lti_scores_purged", purged }, "scores sent, given up or superseded past their retention were deleted");
    return purged;
  }

  /** Stops looking; posts in flight finish (their entries are settled), the rest stay queued for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.pumping;
    await Promise.all(this.posts);
  }
}
