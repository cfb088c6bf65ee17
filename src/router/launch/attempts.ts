/**
 * `LaunchAttempts`: on-demand launches under a storm, one sign-in token request per
 * student and exam, however many browser requests ask for it. (Formerly `LaunchQueue`:
 * it is not a queue — the rate budget queues calls — but the registry that merges
 * duplicate attempts per student and holds requests on them.)
 *
 * A launch *joins* the student's attempt for that exam, or starts one. An attempt is one
 * platform call (launch priority, bounded by `launchWaitMs`); every request held on it
 * when the token arrives gets the same answer, so a double click or a second tab costs
 * one token. The first request that gets the answer *claims* the attempt: it is
 * forgotten, and the next launch starts afresh (a token is single-use, and a launch a
 * minute later must not get a used one).
 *
 * Requests are never held for long: the route holds one for a couple of seconds, then
 * answers with a waiting page whose refresh URL carries the attempt's wait id. The wait
 * id is 144 random bits, bound to the student it was made for; the route refuses it to
 * anyone else. An attempt nobody is waiting on any more (the student closed the tab) is
 * aborted after `abandonMs`, which takes its call out of the rate budget's queue.
 */
import { randomBytes } from "node:crypto";

export type AttemptOutcome =
  | { kind: "token"; token: string }
  | { kind: "error"; error: unknown; elapsedMs: number };

/** What a held request learns: the outcome, that its hold ran out, or that its client left. */
export type WaitResult = AttemptOutcome | "hold_expired" | "client_gone";

export interface LaunchAttempt {
  readonly examId: string;
  /** The student it is for (`studentKey`). Only this student may follow its wait id. */
  readonly userKey: string;
  /** Order of creation: "students ahead of you" counts pending attempts with a smaller one. */
  readonly seq: number;
  readonly createdAt: number;
  waitId: string | undefined;
  outcome: AttemptOutcome | undefined;
  settledAt: number;
  /** When a request last asked about it. */
  lastSeenAt: number;
}

interface AttemptState extends LaunchAttempt {
  key: string;
  held: Set<(outcome: AttemptOutcome) => void>;
  controller: AbortController;
}

export interface LaunchAttemptsOptions {
  /**
   * How long an attempt nobody asks about is kept: a pending one is then aborted, a
   * settled one dropped. Must exceed the time between a waiting page and its refresh.
   */
  abandonMs: number;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

const WAIT_ID = /^[A-Za-z0-9_-]{24}$/;

export class LaunchAttempts {
  private readonly byKey = new Map<string, AttemptState>();
  private readonly byWaitId = new Map<string, AttemptState>();
  /** Unsettled attempts in creation order (a Map keeps insertion order). */
  private readonly pending = new Map<number, AttemptState>();
  private seq = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: LaunchAttemptsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The student's attempt for this exam; `request` starts one when there is none. It gets
   * a signal that aborts when the attempt is abandoned, and must resolve with the token.
   */
  join(examId: string, userKey: string, request: (signal: AbortSignal) => Promise<string>): { attempt: LaunchAttempt; shared: boolean } {
    const key = `${examId}\u0000${userKey}`;
    const now = this.now();
    const existing = this.byKey.get(key);
    if (existing) {
      existing.lastSeenAt = now;
      return { attempt: existing, shared: true };
    }
    const state: AttemptState = {
      key, examId, userKey, seq: ++this.seq, createdAt: now, waitId: undefined, outcome: undefined,
      settledAt: 0, lastSeenAt: now, held: new Set(), controller: new AbortController(),
    };
    this.byKey.set(key, state);
    this.pending.set(state.seq, state);
    this.startSweeper();
    // Settles the attempt exactly once; the promise never rejects unhandled.
    request(state.controller.signal).then(
      (token) => this.settle(state, { kind: "token", token }),
      (error: unknown) => this.settle(state, { kind: "error", error, elapsedMs: this.now() - state.createdAt }),
    );
    return { attempt: state, shared: false };
  }

  /** The attempt behind a waiting page's refresh URL, if it is still alive. */
  byWait(waitId: unknown): LaunchAttempt | undefined {
    if (typeof waitId !== "string" || !WAIT_ID.test(waitId)) return undefined;
    const state = this.byWaitId.get(waitId);
    if (state) state.lastSeenAt = this.now();
    return state;
  }

  /** The attempt's wait id, made on first use: unguessable (144 random bits). */
  waitIdOf(attempt: LaunchAttempt): string {
    const state = attempt as AttemptState;
    if (state.waitId === undefined) {
      state.waitId = randomBytes(18).toString("base64url");
      this.byWaitId.set(state.waitId, state);
    }
    return state.waitId;
  }

  /** How many students' attempts were started before this one and still wait for a token. */
  ahead(attempt: LaunchAttempt): number {
    let count = 0;
    for (const [seq] of this.pending) {
      if (seq >= attempt.seq) break;
      count += 1;
    }
    return count;
  }

  /**
   * Holds until the attempt settles, `holdMs` passes, or `onGone` reports that the
   * client went away (the browser cancelled a double-clicked navigation, or left).
   */
  wait(attempt: LaunchAttempt, holdMs: number, onGone: (cb: () => void) => () => void): Promise<WaitResult> {
    const state = attempt as AttemptState;
    if (state.outcome) return Promise.resolve(state.outcome);
    if (holdMs <= 0) return Promise.resolve("hold_expired");
    return new Promise<WaitResult>((resolve) => {
      const finish = (result: WaitResult) => {
        clearTimeout(timer);
        stopWatching();
        state.held.delete(onOutcome);
        state.lastSeenAt = this.now();
        resolve(result);
      };
      const onOutcome = (outcome: AttemptOutcome) => finish(outcome);
      const timer = setTimeout(() => finish("hold_expired"), holdMs);
      const stopWatching = onGone(() => finish("client_gone"));
      state.held.add(onOutcome);
    });
  }

  /**
   * A response carried the outcome: forget the attempt, so the next launch starts afresh.
   * Requests held on it at the same moment still get the same outcome (they resolved together).
   */
  claim(attempt: LaunchAttempt): void {
    this.forget(attempt as AttemptState);
  }

  /** Attempts still waiting for their token. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Attempts alive (for stats and tests). */
  get size(): number {
    return this.byKey.size;
  }

  /** Aborts every pending attempt and stops the sweeper (router close). */
  close(): void {
    for (const state of [...this.byKey.values()]) {
      if (!state.outcome) state.controller.abort(new Error("the router closed"));
      this.forget(state);
    }
    this.stopSweeper();
  }

  private settle(state: AttemptState, outcome: AttemptOutcome): void {
    if (state.outcome) return;
    state.outcome = outcome;
    state.settledAt = this.now();
    this.pending.delete(state.seq);
    for (const deliver of [...state.held]) deliver(outcome);
  }

  private forget(state: AttemptState): void {
    if (this.byKey.get(state.key) === state) this.byKey.delete(state.key);
    if (state.waitId !== undefined) this.byWaitId.delete(state.waitId);
    this.pending.delete(state.seq);
  }

  /** Runs (unref'd) from the first attempt until close(): restarting it per launch cost more than its idle ticks. */
  private startSweeper(): void {
    if (this.sweeper) return;
    const every = Math.max(250, Math.min(5_000, Math.floor(this.options.abandonMs / 2)));
    this.sweeper = setInterval(() => this.sweep(), every);
    // A launch that is waiting keeps its own request open; the sweeper alone must not
    // keep a process (a test, a CLI) alive.
    this.sweeper.unref();
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const state of [...this.byKey.values()]) {
      if (state.held.size > 0) continue;
      if (state.outcome) {
        if (now - Math.max(state.settledAt, state.lastSeenAt) > this.options.abandonMs) this.forget(state);
      } else if (now - state.lastSeenAt > this.options.abandonMs) {
        // Nobody is waiting: take its call out of the budget's queue (if it is still
        // there) so the students who stayed go sooner.
        state.controller.abort(new Error("the student stopped waiting"));
        this.forget(state);
      }
    }
  }
}
