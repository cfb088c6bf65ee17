/**
 * `TokenPreparer`: issues sign-in tokens for prepared rosters before an exam starts, and
 * refreshes the unused ones until `keepAfterStartMs` after it, so that at the start a
 * launch is a lookup in the fleet's prepared tokens instead of a platform call. The
 * tokens go to the fleet's `PreparedTokenStore`: any instance hands them out, once.
 *
 * Pacing. The rate budget is a sliding window, which allows a burst of a whole window's
 * worth of calls; a pre-warmer using it would leave live launches waiting for a slot for
 * up to a window. So pre-warm calls are spaced evenly at `budgetShare` of the budget's
 * rate (`limit / windowMs`, read from the client's budget), at most `concurrency` in
 * flight, and sent at `normal` priority: live launches still go first in the queue, and
 * find room in the window.
 *
 * Timeline of one student's token (defaults: 10-minute tokens, 2-minute margin):
 *   issued at t (request sent)  → handed out only until t + 8 min (`usableUntil`)
 *   refreshed from usableUntil − min(60 s, usable life / 4), while before keepUntil
 *   after keepUntil: no more calls; a stale token is dropped, never handed out.
 *
 * In fleet mode (`coordinate`, see coordinator.ts) this instance runs only the plans whose
 * lease it holds: the others stay here as a local view (for `take`) and are not pumped.
 *
 * Circuit breaker. Calls go through the sign-in endpoint's breaker, as launches do. While
 * it is open a call is refused unsent: the entry is not charged a try, and pre-warming
 * pauses until the breaker says trying again is worth it, instead of asking it for each
 * student in turn.
 */
import { context, ROOT_CONTEXT } from "@opentelemetry/api";
import type { Logger } from "../../core/logger.js";
import type { PreparedTokenStore } from "../../fleet/prepared-tokens.js";
import { CircuitOpenError, type PlatformBreaker } from "../../fleet/platform-breaker.js";
import { PlatformError } from "../../platform/errors.js";
import type { PlatformClient } from "../../platform/types.js";
import type { StudentIdentity } from "../../platform/schemas.js";
import type { PrepareSettings } from "./settings.js";
import { studentKey } from "../shared/student-key.js";
import { PreparationPlan, type PreparedEntry, type PrepareProgress } from "./plan.js";
import { alignEntry, dueAt, type FleetEntryState, type PlanFleetHooks, type PreparerInput } from "./entry-schedule.js";

export type { FleetEntryState, PlanFleetHooks, PreparerInput } from "./entry-schedule.js";

/** Calls per entry before a transient failure counts as failed. */
const MAX_TRIES = 3;

export class TokenPreparer {
  /** Fleet mode: the plans this instance leads. Undefined in process: it runs every plan. */
  private led: Set<string> | undefined;
  private hooks: PlanFleetHooks | undefined;
  private readonly plans = new Map<string, PreparationPlan>();
  private inFlight = 0;
  private lastStartAt = -Infinity;
  /** No call before this (ms): the circuit breaker refused the last one. */
  private pausedUntil = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly platform: PlatformClient,
    private readonly settings: PrepareSettings,
    private readonly logger: Logger,
    private readonly tokens: PreparedTokenStore,
    /** The sign-in endpoint's circuit breaker; none: every call is sent. */
    private readonly breaker?: PlatformBreaker,
    private readonly now: () => number = Date.now,
  ) {}

  /** Fleet mode: from now on pump only the plans passed to `startLeading`. */
  coordinate(hooks: PlanFleetHooks): void {
    this.hooks = hooks;
    this.led = new Set();
  }

  leads(examId: string): boolean {
    return this.led === undefined || this.led.has(examId);
  }

  /** How many plans this instance keeps (running or kept until their exam is over). */
  get planCount(): number {
    return this.plans.size;
  }

  hasPlan(examId: string): boolean {
    return this.plans.has(examId);
  }

  /** The plan's students, by student key (for the coordinator's takeover). */
  studentKeys(examId: string): string[] {
    return [...(this.plans.get(examId)?.entries.keys() ?? [])];
  }

  /** Students whose token is not known to be handed out (an on-demand one may yet be): what a leader asks the fleet at each renewal. */
  undecidedStudentKeys(examId: string): string[] {
    return [...(this.plans.get(examId)?.entries ?? [])].filter(([, entry]) => entry.state !== "handedOut").map(([key]) => key);
  }

  /**
   * This instance won the plan's lease: align each entry with what the fleet holds (a token
   * stored by the previous leader is not issued again), then issue what is missing.
   */
  startLeading(examId: string, fleetState: Map<string, FleetEntryState>): void {
    const plan = this.plans.get(examId);
    if (!plan || !this.led) return;
    for (const [key, entry] of plan.entries) alignEntry(entry, fleetState.get(key));
    this.led.add(examId);
    this.pump();
  }

  /** Lost the lease (renew failed): issue nothing more for it; calls in flight still land. */
  stopLeading(examId: string): void {
    this.led?.delete(examId);
  }

  /** Launches seen by other instances (the leader learns of them each lease renewal). */
  applyTaken(examId: string, taken: Map<string, "handedOut" | "onDemand">): void {
    const plan = this.plans.get(examId);
    for (const [key, outcome] of taken) {
      const entry = plan?.entries.get(key);
      if (entry) alignEntry(entry, { taken: outcome, usableUntil: entry.hasUsableToken(this.now()) ? entry.usableUntil : undefined });
    }
  }

  /** How long a finished plan stays readable (the fleet keeps its input as long past keepUntil). */
  get keepFinishedMs(): number {
    return this.settings.keepFinishedMs;
  }

  /** Life of a token during which it may be handed out. */
  private get usableLifeMs(): number {
    return this.settings.tokenTtlMs - this.settings.minTokenLifeMs;
  }

  /** Starts (or replaces) the plan for an exam; issuing begins at startAt − lead. */
  prepare(input: PreparerInput): PrepareProgress {
    const now = this.now();
    const leadMs = this.settings.leadMs ?? this.autoLeadMs(input.roster.length);
    const plan = new PreparationPlan(input.examId, input.classId, input.courseId, input.startAt,
      input.startAt - leadMs, input.startAt + this.settings.keepAfterStartMs, input.roster);
    const previous = this.plans.get(input.examId);
    if (previous) {
      plan.adopt(previous, now);
      previous.cancelled = true;
      // Tokens of another class are no use to the new plan.
      if (previous.classId !== plan.classId) for (const key of previous.entries.keys()) void this.tokens.discard(input.examId, key).catch(() => undefined);
    }
    this.plans.set(input.examId, plan);
    this.purge(now);
    this.logger.info({ event: "prepare_planned", examId: input.examId, roster: plan.entries.size, issueFrom: new Date(plan.issueFrom).toISOString() }, "pre-warming planned");
    this.pump();
    return plan.progress(now);
  }

  progress(examId: string): PrepareProgress | undefined {
    return this.plans.get(examId)?.progress(this.now());
  }

  /** Every plan's progress (the metrics read it when scraped). */
  plansProgress(): PrepareProgress[] {
    const now = this.now();
    return [...this.plans.values()].map((plan) => plan.progress(now));
  }

  /**
   * The student's prepared token for this exam, at most once fleet-wide, only if issued
   * for `classId` (the launch's class: checked against this instance's plan, and by the
   * store against the token's own). Undefined when there is none usable: the caller then
   * asks on demand, and the entry stops being refreshed.
   */
  async take(examId: string, classId: string, student: StudentIdentity): Promise<string | undefined> {
    const plan = this.plans.get(examId);
    if (plan && plan.classId !== classId) return undefined;
    const entry = plan?.entryFor(student);
    if (entry && (entry.state === "handedOut" || entry.state === "onDemand")) return undefined;
    const prepared = await this.tokens.take(examId, studentKey(student), classId);
    if (prepared !== undefined && prepared.usableUntil > this.now()) {
      if (entry) entry.state = "handedOut";
      this.hooks?.taken(examId, studentKey(student), "handedOut");
      return prepared.token;
    }
    if (entry && entry.state !== "failed") entry.state = "onDemand";
    if (!entry || entry.state !== "failed") this.hooks?.taken(examId, studentKey(student), "onDemand");
    return undefined;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const plan of this.plans.values()) {
      plan.cancelled = true;
    }
    this.plans.clear();
    this.led?.clear();
  }

  /** ms between two pre-warm calls: the budget's rate × budgetShare, spread evenly (the budget does the arithmetic). */
  private intervalMs(): number {
    return this.platform.pacingIntervalMs(this.settings.budgetShare);
  }

  private autoLeadMs(rosterSize: number): number {
    const need = rosterSize * this.intervalMs() * 1.25 + 30_000;
    return Math.min(Math.max(need, 60_000), Math.max(0, this.usableLifeMs - 60_000));
  }

  /** Starts every call that is due and allowed by the pacing; sets a timer for the next. */
  private pump(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inFlight < this.settings.concurrency) {
      const now = this.now();
      let best: { plan: PreparationPlan; entry: PreparedEntry; at: number } | undefined;
      for (const plan of this.plans.values()) {
        if (!this.leads(plan.examId)) continue;
        for (const entry of plan.entries.values()) {
          const at = dueAt(plan, entry, now, this.usableLifeMs);
          if (at !== Infinity && (!best || at < best.at)) best = { plan, entry, at };
        }
      }
      if (!best) return; // nothing left to do until a plan is added or a call completes
      const wakeAt = Math.max(best.at, this.lastStartAt + this.intervalMs(), this.pausedUntil);
      if (wakeAt > now) {
        this.timer = setTimeout(() => this.pump(), Math.max(1, Math.ceil(wakeAt - now)));
        // Plans live as long as the app; the timer alone must not keep a process alive.
        this.timer.unref();
        return;
      }
      this.lastStartAt = now;
      this.issue(best.plan, best.entry, now);
    }
  }

  private issue(plan: PreparationPlan, entry: PreparedEntry, sentAt: number): void {
    entry.inFlight = true;
    this.inFlight += 1;
    const key = studentKey(entry.student);
    const call = async (): Promise<void> => {
      // In a fleet another instance may have handed this token out: refreshing it would issue a second one.
      if (this.led && entry.state === "ready" && !(await this.tokens.has(plan.examId, key).catch(() => true))) {
        entry.state = "handedOut";
        return;
      }
      const send = (): Promise<string> => {
        plan.platformCalls += 1;
        this.hooks?.called(plan.examId);
        // The roster was parsed with the StudentIdentity schema and the ids come from the store.
        return this.platform.students.issueSignInToken(entry.student, plan, { priority: "normal" });
      };
      const token = await (this.breaker ? this.breaker.run(send) : send());
      // Counted from when the request was sent: the platform's 10 minutes cannot have started earlier.
      if (!plan.cancelled && !this.closed && (entry.state === "waiting" || entry.state === "ready")) {
        const usableUntil = sentAt + this.usableLifeMs;
        const stored = await this.tokens.put(plan.examId, key, token, usableUntil, plan.classId).then(() => true, () => false);
        if (stored) this.hooks?.stored(plan.examId, key, usableUntil);
        // Handed out while it was being stored? Then it is not ready.
        if (stored && (entry.state === "waiting" || entry.state === "ready")) entry.hold(usableUntil);
      }
    };
    // Each pre-warm call is a trace of its own, not a child of whichever request started the pump.
    context.with(ROOT_CONTEXT, call).catch((error: unknown) => this.failed(plan, entry, error)).finally(() => {
      entry.inFlight = false;
      this.inFlight -= 1;
      this.pump();
    });
  }

  private failed(plan: PreparationPlan, entry: PreparedEntry, error: unknown): void {
    if (error instanceof CircuitOpenError) {
      // Not sent: no try is charged; the whole preparer waits (pump reads pausedUntil).
      this.pausedUntil = Math.max(this.pausedUntil, this.now() + error.retryAfterMs);
      entry.nextTryAt = Math.max(entry.nextTryAt, this.pausedUntil);
      this.logger.debug({ event: "prepare_paused", examId: plan.examId, retryAfterMs: error.retryAfterMs }, "pre-warming paused: the sign-in circuit breaker is open");
      return;
    }
    const platformError = error instanceof PlatformError ? error : undefined;
    entry.failures += 1;
    entry.lastError = { code: platformError?.code ?? "internal_error", message: platformError?.message ?? "unexpected error" };
    const retry = platformError?.isTransient === true && entry.failures < MAX_TRIES;
    if (retry) entry.nextTryAt = this.now() + 5_000 * 2 ** (entry.failures - 1);
    else if (entry.state === "ready") entry.noMoreCalls = true; // keep the current token while it is usable
    else if (entry.state === "waiting") entry.state = "failed";
    this.logger.warn({
      event: "prepare_failed", examId: plan.examId, user: entry.student.orgInternalId, kind: platformError?.kind,
      code: entry.lastError.code, willRetry: retry,
    }, "pre-warming a sign-in token failed");
  }

  /** Forgets plans long finished, so a long-running app does not keep every roster. */
  private purge(now: number): void {
    for (const [examId, plan] of this.plans) {
      if (now > plan.keepUntil + this.usableLifeMs + this.settings.keepFinishedMs) {
        this.plans.delete(examId);
      }
    }
  }
}
