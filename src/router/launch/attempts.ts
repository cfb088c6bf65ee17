/**
 * `LaunchAttempts`: on-demand launches under a storm, one sign-in token request per
 * student and exam, however many browser requests (on however many instances) ask for it.
 *
 * The shared truth is the fleet's `LaunchAttemptStore` (in process by default, Redis in
 * fleet mode): which attempt a student has, its wait id, who owns its call (a lease), its
 * outcome. This class is this instance's side of it, the same in both modes:
 * - it runs the calls of the attempts this instance owns, renewing the lease while the
 *   call is in flight, and stores the outcome;
 * - it holds requests on an attempt: pushed the moment a call run here settles, by a
 *   short poll of the store for an attempt another instance runs;
 * - it counts "students ahead of you" among the attempts it runs (in fleet mode: this
 *   instance's share of the storm, roughly the fleet's ÷ instances);
 * - it aborts a call nobody asked about for `abandonMs` (the student closed the tab),
 *   which takes it out of the rate budget's queue.
 *
 * A wait id is 144 random bits, bound to the student it was made for: the store answers
 * `unknown` for anyone else.
 */
import type { AttemptOutcome, AttemptView, LaunchAttemptStore } from "../../fleet/launch-attempts.js";
import type { AttemptCall, AttemptHandle, LaunchAttemptsOptions, RunningCall, WaitResult } from "./attempt-types.js";
import { UnseenWaits } from "./unseen-waits.js";

export type { AttemptOutcome } from "../../fleet/launch-attempts.js";
export type { AttemptCall, AttemptHandle, LaunchAttemptsOptions, WaitResult } from "./attempt-types.js";

/** How long `belongsElsewhere` remembers a wait id: past any outcome's life. */
const ISSUED_KEPT_MS = 10 * 60_000;

const WAIT_ID = /^[A-Za-z0-9_-]{24}$/;

export class LaunchAttempts {
  /** Calls this instance runs, by wait id, in start order (a Map keeps insertion order). */
  private readonly running = new Map<string, RunningCall>();
  private seq = 0;
  /**
   * Wait ids this instance handed out, with their student: a refresh here with one of
   * them for another student or exam is refused (403) rather than started over. (The
   * store answers `unknown` for both; on another instance such a refresh starts the
   * other student's own launch, which gives away nothing.)
   */
  private readonly issued = new Map<string, { examId: string; userKey: string; at: number }>();
  /** Unknown wait ids refreshed here while the fleet may hold them out of sight. */
  private readonly unseen: UnseenWaits;
  /** Calls in `running` not settled yet. */
  private unsettled = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly store: LaunchAttemptStore, private readonly options: LaunchAttemptsOptions) {
    // After an outage: an owner's next renewal (a third of the lease) or the time another
    // instance may take to find Redis again (its reconnect back-off ≤ 2 s, PING every 1 s).
    this.unseen = new UnseenWaits(options.abandonMs, Math.max(options.leaseMs / 3, 3_000));
  }

  /** A wait id's plausible shape (anything else is unknown without asking the store). */
  static isWaitId(value: unknown): value is string {
    return typeof value === "string" && WAIT_ID.test(value);
  }

  /**
   * Joins the student's attempt for this exam, or starts one; when this instance becomes
   * its owner, `call` runs here. `shared`: the attempt was already running.
   */
  async join(examId: string, userKey: string, call: AttemptCall): Promise<{ handle: AttemptHandle; shared: boolean }> {
    const ticket = await this.store.begin(examId, userKey);
    const handle = { waitId: ticket.waitId, examId, userKey };
    if (!this.issued.has(handle.waitId)) this.issued.set(handle.waitId, { examId, userKey, at: Date.now() });
    this.startSweeper();
    if (ticket.lease !== undefined) this.run(handle, ticket.lease, call);
    else this.touch(handle.waitId);
    return { handle, shared: ticket.lease === undefined };
  }

  /** Becomes the owner of an attempt whose owner died, and runs `call` here. False if someone else was quicker. */
  async takeOver(handle: AttemptHandle, call: AttemptCall): Promise<boolean> {
    const lease = await this.store.takeOver(handle.waitId, handle.examId, handle.userKey);
    if (lease === undefined) return false;
    this.run(handle, lease, call);
    return true;
  }

  /** True when this instance made `waitId` for another student or exam. */
  belongsElsewhere(waitId: string, examId: string, userKey: string): boolean {
    const owner = this.issued.get(waitId);
    return owner !== undefined && (owner.examId !== examId || owner.userKey !== userKey);
  }

  /** Whether a refresh whose wait id the store does not know gets the waiting page again rather than a start-over (unseen-waits.ts). */
  keepsLooking(handle: AttemptHandle): boolean {
    this.startSweeper();
    return this.unseen.keepLooking(handle.waitId, this.store.shared, this.store.backSince);
  }

  /** What a refresh with this wait id sees (only for the student it was made for). */
  view(handle: AttemptHandle): Promise<AttemptView> {
    this.touch(handle.waitId);
    return this.store.view(handle.waitId, handle.examId, handle.userKey);
  }

  /** The outcome for this request; a token to every claim of one double click, then never again. */
  async claim(handle: AttemptHandle): Promise<AttemptOutcome | undefined> {
    // Its held requests were all woken together; later ones ask the store.
    if (this.running.get(handle.waitId)?.settled) this.running.delete(handle.waitId);
    const outcome = await this.store.claim(handle.waitId, handle.examId, handle.userKey);
    if (outcome !== undefined) this.issued.delete(handle.waitId); // answered: a refresh with it starts over anyway
    return outcome;
  }

  /** How many students' calls this instance started before this one and still run. */
  ahead(handle: AttemptHandle): number {
    const mine = this.running.get(handle.waitId);
    let count = 0;
    for (const call of this.running.values()) {
      if (mine && call.seq >= mine.seq) break;
      if (!call.settled) count += 1;
    }
    return count;
  }

  /** Calls still waiting for their token on this instance (what a new launch queues behind). */
  get pendingCount(): number {
    return this.unsettled;
  }

  /** When the attempt started here, if it runs here (for "waited" figures in the log). */
  startedAt(handle: AttemptHandle): number | undefined {
    return this.running.get(handle.waitId)?.createdAt;
  }

  /**
   * Holds until the attempt settles, its owner's lease lapses, `holdMs` passes, or
   * `onGone` reports that the client went away.
   */
  wait(handle: AttemptHandle, holdMs: number, onGone: (cb: () => void) => () => void): Promise<WaitResult> {
    return new Promise<WaitResult>((resolve) => {
      let finished = false;
      const local = this.running.get(handle.waitId);
      const finish = (result: WaitResult) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearTimeout(poller);
        stopWatching();
        local?.held.delete(onSettled);
        this.touch(handle.waitId);
        resolve(result);
      };
      const onSettled = () => finish("settled");
      const timer = setTimeout(() => finish("hold_expired"), Math.max(0, holdMs));
      const stopWatching = onGone(() => finish("client_gone"));
      let poller: NodeJS.Timeout | undefined;
      if (local) {
        // Pushed: the call runs here.
        if (local.settled) return finish("settled");
        local.held.add(onSettled);
        if (holdMs <= 0) finish("hold_expired");
        return;
      }
      // Another instance runs it: ask the store now and then.
      const poll = async () => {
        const view = await this.store.view(handle.waitId, handle.examId, handle.userKey).catch((): AttemptView => ({ state: "running", leaseLapsed: false }));
        if (finished) return;
        if (view.state === "done") return finish("settled");
        if (view.state === "unknown") return finish("unknown");
        if (view.leaseLapsed) return finish("lapsed");
        if (holdMs <= 0) return finish("hold_expired");
        poller = setTimeout(() => void poll(), this.options.pollMs ?? 100);
      };
      void poll();
    });
  }

  /** Aborts every call run here and stops the sweeper (router close). */
  close(): void {
    this.closed = true;
    for (const call of this.running.values()) if (!call.settled) call.controller.abort(new Error("the router closed"));
    this.running.clear();
    this.issued.clear();
    this.unseen.clear();
    this.unsettled = 0;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private touch(waitId: string): void {
    const call = this.running.get(waitId);
    if (call) call.lastSeenAt = Date.now();
  }

  /** Runs the owner's call: renews the lease meanwhile, stores the outcome, wakes the held requests. */
  private run(handle: AttemptHandle, lease: string, call: AttemptCall): void {
    if (this.closed) return;
    const now = Date.now();
    const state: RunningCall = {
      handle, seq: ++this.seq, createdAt: now, lastSeenAt: now, settled: false, held: new Set(), controller: new AbortController(),
    };
    this.forget(handle.waitId); // a takeover re-runs under the same wait id: to the back of the order
    this.running.set(handle.waitId, state);
    this.unsettled += 1;
    this.startSweeper();
    let owned = { handle, lease };
    let renewing = false;
    const renewer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      const was = owned;
      this.store.renew(was.handle.waitId, was.lease)
        .then(async (mine) => {
          if (mine || state.settled) return;
          const moved = await this.rehome(state, was.handle, was.lease).catch(() => undefined);
          if (moved) owned = moved;
          // Lost the lease (we were too slow and another instance took over): its call wins.
          else if (!state.settled) state.controller.abort(new Error("the attempt was taken over"));
        }, () => undefined)
        .finally(() => { renewing = false; });
    }, Math.max(50, Math.floor(this.options.leaseMs / 3)));
    renewer.unref();
    call(state.controller.signal).then(async (outcome) => {
      clearInterval(renewer);
      let stored = await this.store.complete(owned.handle.waitId, owned.lease, outcome).catch(() => false);
      // Settled before a renewal noticed the loss (Redis away or back empty): the attempt is
      // put back first, so that the outcome is not dropped and the student calls again.
      if (!stored && !state.settled) {
        const moved = await this.rehome(state, owned.handle, owned.lease).catch(() => undefined);
        if (moved) {
          owned = moved;
          stored = await this.store.complete(moved.handle.waitId, moved.lease, outcome).catch(() => false);
        }
      }
      if (stored && outcome.kind === "token") this.options.onIssued?.(owned.handle);
      if (!state.settled) {
        state.settled = true;
        if (this.running.get(handle.waitId) === state) this.unsettled -= 1;
      }
      for (const wake of [...state.held]) wake();
    });
  }

  /**
   * The store lost the attempt whose call runs here (Redis came back empty):
   * the call goes on under a new attempt for the same student, begun from what this
   * instance holds (the exam and student it runs the call for; nothing read from Redis is
   * taken on trust), so the student sent back to the launch URL joins it instead of making
   * a second sign-in call. undefined when the attempt is not lost (another instance took
   * it over) or the student already began a new one (whose call then goes instead).
   */
  private async rehome(state: RunningCall, lost: AttemptHandle, lease: string): Promise<{ handle: AttemptHandle; lease: string } | undefined> {
    // First the same attempt, under its own wait id: in Redis if it answers (it came back
    // empty), else in this instance's fallback (an outage). The student's waiting page
    // refreshes to that wait id, and finds it on whichever instance (or here) can see it.
    if (await this.store.adopt(lost.waitId, lost.examId, lost.userKey, lease).catch(() => false)) return { handle: lost, lease };
    // Refused in a fallback: the student began an attempt of their own here, whose call goes instead.
    if (!this.storeShared()) return undefined;
    const view = await this.store.view(lost.waitId, lost.examId, lost.userKey);
    if (view.state !== "unknown" || state.settled || !this.storeShared()) return undefined;
    const ticket = await this.store.begin(lost.examId, lost.userKey);
    if (ticket.lease === undefined || state.settled) return undefined;
    const handle = { waitId: ticket.waitId, examId: lost.examId, userKey: lost.userKey };
    if (this.running.get(lost.waitId) === state) this.running.delete(lost.waitId);
    this.running.set(handle.waitId, state);
    state.handle = handle;
    this.issued.set(handle.waitId, { examId: handle.examId, userKey: handle.userKey, at: Date.now() });
    return { handle, lease: ticket.lease };
  }

  private storeShared(): boolean { return this.store.shared !== false; } // read afresh after each await: Redis may have gone or come back

  /** Runs (unref'd) from the first call until close(): restarting it per launch cost more than its idle ticks. */
  private startSweeper(): void {
    if (this.sweeper || this.closed) return;
    const every = Math.max(250, Math.min(5_000, Math.floor(this.options.abandonMs / 2)));
    this.sweeper = setInterval(() => this.sweep(), every);
    // A launch that is waiting keeps its own request open; the sweeper alone must not
    // keep a process (a test, a CLI) alive.
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [waitId, { at }] of this.issued) {
      if (now - at <= ISSUED_KEPT_MS) break; // insertion order is age order
      this.issued.delete(waitId);
    }
    this.unseen.sweep(now);
    for (const [waitId, call] of this.running) {
      if (call.held.size > 0 || now - call.lastSeenAt <= this.options.abandonMs) continue;
      // Nobody is waiting: take its call out of the budget's queue (if it is still
      // there) so the students who stayed go sooner. Its outcome says "abandoned".
      if (!call.settled) call.controller.abort(new Error("the student stopped waiting"));
      this.forget(waitId);
    }
  }

  private forget(waitId: string): void {
    const call = this.running.get(waitId);
    if (call && !call.settled) this.unsettled -= 1;
    this.running.delete(waitId);
  }
}
