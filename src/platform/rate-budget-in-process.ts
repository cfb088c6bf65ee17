/**
 * The in-process rate budget: one scheduler in this process (see rate-budget.ts for what
 * it promises, and createRateBudget / createFallbackRateBudget for how it is made).
 */
import { TimeQueue } from "../core/time-queue.js";
import type { RateBudget, RateBudgetStats, RateLimitObservation, ReleaseFn } from "./rate-budget-interface.js";
import { DEFAULT_NORMAL_SHARE, type FallbackBudgetOptions } from "./rate-budget-options.js";
import type { RequestPriority } from "./request-options.js";
import { WindowDetector } from "./window-detector.js";

interface Waiter {
  resolve(release: ReleaseFn): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Each request's place in the send order (`totalSent` just after it was sent), as a
 * property of its release function under this symbol: a WeakMap entry per call (an
 * ephemeron for the GC to trace) cost a storm more.
 */
const SENT = Symbol("sendNumber");
type NumberedRelease = ReleaseFn & { [SENT]?: number };

export class InProcessRateBudget implements RateBudget {
  private readonly configuredLimit: number;
  private readonly learnLimit: boolean;
  private serverLimit = Infinity;
  /** Paces at the platform's real window when its headers show a shorter one. */
  private readonly detector: WindowDetector;
  private readonly maxConcurrency: number;
  private readonly now: () => number;
  private readonly queues: Record<RequestPriority, Waiter[]> = { launch: [], normal: [] };
  /**
   * A request let through occupies the window from the moment it is sent until `windowMs`
   * after its response: the platform saw it somewhere in between, and counting from the
   * later end means latency can never make us undercount the platform's window. In
   * flight it is counted in `inFlight`; once answered, its response time joins `done`.
   */
  private readonly done = new TimeQueue();
  /** When each normal call of the last window was sent: what `normalShare` is counted against. */
  private readonly normalsSent = new TimeQueue();
  private readonly normalShare: number;
  /**
   * Until when the window is taken to be full though we do not know what is in it (see
   * `assumeFull`): calls go only on a Remaining the platform told us, else one at a time.
   */
  private fullUntil = 0;
  private probing = false;
  /** The part of the platform's stated limit and reported Remaining this budget may use (a fallback shares them with the other instances). */
  private readonly platformShare: number;
  private inFlight = 0;
  private totalSent = 0;
  private pausedUntil = 0;
  private server: { remaining: number; resetAt: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(options: FallbackBudgetOptions) {
    this.configuredLimit = options.limit;
    this.learnLimit = options.learnLimit ?? false;
    this.detector = new WindowDetector(options.windowMs ?? 60_000);
    this.maxConcurrency = options.maxConcurrency ?? 16;
    this.now = options.now ?? Date.now;
    this.normalShare = options.normalShare ?? DEFAULT_NORMAL_SHARE;
    this.platformShare = options.platformShare ?? 1;
  }

  /**
   * Takes the window to be full for `ms` (one window length by default): the calls in it
   * are not known here (they went through a shared window now out of reach). Until then a
   * call goes only on a Remaining the platform reported (its headers), or alone as a probe
   * to learn one. A Remaining seen before (this budget's share of it) was shared with
   * other instances, which may have used some since: it counts less `maxConcurrency`
   * calls, and one at or under that margin is taken to be spent until its Reset.
   */
  assumeFull(ms = this.windowMs): void {
    this.fullUntil = Math.max(this.fullUntil, this.now() + ms);
    const server = this.server;
    if (server) server.remaining = server.remaining > this.maxConcurrency ? server.remaining - this.maxConcurrency : Math.min(0, server.remaining);
    this.pump();
  }

  /** Until when the platform said its window is full (its Reset, ms since epoch), if it still is. */
  platformFullUntil(): number | undefined {
    const now = this.now();
    this.expire(now);
    return this.server && this.server.remaining <= 0 && this.server.resetAt > now ? this.server.resetAt : undefined;
  }

  private get windowMs(): number {
    return this.detector.windowMs;
  }

  private get limit(): number {
    if (this.serverLimit === Infinity) return this.configuredLimit;
    // A fallback's part of the platform's stated limit, not all of it: the other instances'
    // fallbacks take theirs of the same key (each took the whole when the stated limit was
    // under its configured share, and two instances sent twice the limit in a window).
    const stated = Math.max(1, Math.floor(this.serverLimit * this.platformShare));
    return this.learnLimit ? stated : Math.min(this.configuredLimit, stated);
  }

  tryAcquire(priority: RequestPriority): ReleaseFn | undefined {
    // Nobody waits and nothing blocks: go at once, with no queue place or signal listener.
    if (this.queues.launch.length > 0 || this.queues.normal.length > 0) return undefined;
    const now = this.now();
    return this.blockedFor(now) === 0 ? this.take(now, priority) : undefined;
  }

  acquire(priority: RequestPriority, signal?: AbortSignal): Promise<ReleaseFn> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const admitted = this.tryAcquire(priority);
    if (admitted !== undefined) return Promise.resolve(admitted);
    return new Promise<ReleaseFn>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      // One queue for both the push and the abort below (an unknown priority waits as normal).
      const queue = this.queues[priority === "launch" ? "launch" : "normal"];
      if (signal) {
        waiter.onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index !== -1) queue.splice(index, 1);
          reject(signal.reason);
          this.pump();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      queue.push(waiter);
      this.pump();
    });
  }

  observe(observation: RateLimitObservation, call?: ReleaseFn): void {
    const now = this.now();
    const { limit, remaining, resetAt } = observation;
    this.detector.observe(observation, now);
    // A lower limit from the platform wins (the key's real limit); a higher one raises ours
    // only when ours is a default (`learnLimit`), not one the integrator chose.
    if (limit !== undefined && Number.isFinite(limit) && limit > 0) this.serverLimit = limit;
    if (remaining !== undefined && resetAt !== undefined && resetAt > now) {
      // Requests sent after the one that brought this answer, in flight or answered since
      // (answers arrive out of order), were not counted in `remaining`: count them. (Those
      // sent before it were; counting them too would hold calls the platform has room
      // for.) Without the call, every other request in flight.
      const sentAt = call === undefined ? undefined : (call as NumberedRelease)[SENT];
      const pending = sentAt === undefined ? Math.max(0, this.inFlight - 1) : this.totalSent - sentAt;
      // The reset is in whole seconds, so it may lie up to 1 s past the window's end; one
      // further away is clock skew or nonsense, and we do not wait on it longer than that.
      const usable = this.platformShare === 1 ? remaining : Math.floor(remaining * this.platformShare);
      this.server = { remaining: usable - pending, resetAt: Math.min(resetAt, now + this.windowMs + 1000) };
    }
    this.pump();
  }

  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
    this.pump();
  }

  pausedUntilMs(): number | undefined {
    return this.pausedUntil > this.now() ? this.pausedUntil : undefined;
  }

  stats(): RateBudgetStats {
    const now = this.now();
    this.expire(now);
    return {
      limit: this.limit,
      windowMs: this.windowMs,
      maxConcurrency: this.maxConcurrency,
      queued: { launch: this.queues.launch.length, normal: this.queues.normal.length },
      inFlight: this.inFlight,
      sentInWindow: this.inFlight + this.done.size,
      totalSent: this.totalSent,
      pausedUntil: this.pausedUntil > now ? this.pausedUntil : undefined,
      serverRemaining: this.server?.remaining,
    };
  }

  estimateWaitMs(ahead: number): number {
    const s = this.stats();
    const paused = s.pausedUntil === undefined ? 0 : s.pausedUntil - this.now();
    // Calls in flight already count in `sentInWindow`; only those still queued add to it.
    const queuedAhead = Math.max(0, ahead - s.inFlight);
    return paused + Math.floor((s.sentInWindow + queuedAhead) / Math.max(1, s.limit)) * s.windowMs;
  }

  pacingIntervalMs(share: number): number {
    return this.windowMs / (this.limit * share);
  }

  /** Lets through as many waiting calls as the budget allows, in priority order. */
  private pump(): void {
    for (;;) {
      const queue = this.nextQueue();
      if (queue.length === 0) break;
      const now = this.now();
      const waitMs = this.blockedFor(now);
      if (waitMs > 0) {
        // Infinity: a release will call pump; a finite wait needs a timer.
        if (Number.isFinite(waitMs)) this.wakeAt(now + waitMs);
        return;
      }
      this.grant(queue.shift() as Waiter, now, queue === this.queues.launch ? "launch" : "normal");
    }
    this.clearTimer();
  }

  /** Launches first, unless normal calls wait and have not had their share of the window. */
  private nextQueue(): Waiter[] {
    const { launch, normal } = this.queues;
    if (launch.length === 0) return normal;
    if (normal.length === 0) return launch;
    this.normalsSent.dropUpTo(this.now() - this.windowMs);
    return this.normalsSent.size < Math.ceil(this.normalShare * this.limit) ? normal : launch;
  }

  /** 0 when a request may go now; otherwise ms until it may (Infinity: until a release). */
  private blockedFor(now: number): number {
    this.expire(now);
    if (this.inFlight >= this.maxConcurrency) return Infinity;
    if (now < this.pausedUntil) return this.pausedUntil - now;
    // The platform's Reset is in whole seconds; one of our own requests leaving the window
    // (see `expire`) may reopen it sooner, so wake for whichever comes first.
    if (this.server && this.server.remaining <= 0) return Math.max(1, Math.min(this.server.resetAt, this.firstExpiry()) - now);
    // Assumed full and no Remaining known: one probe at a time learns one (its release pumps).
    if (now < this.fullUntil && !this.server && this.probing) return Infinity;
    if (this.inFlight + this.done.size < this.limit) return 0;
    const firstExpiry = this.firstExpiry();
    return firstExpiry === Infinity ? Infinity : Math.max(1, firstExpiry - now);
  }

  /** When the first answered request leaves the window (Infinity: none answered yet). */
  private firstExpiry(): number {
    const first = this.done.at(0);
    return first === undefined ? Infinity : first + this.windowMs;
  }

  private expire(now: number): void {
    const left = this.done.dropUpTo(now - this.windowMs);
    // Every request in our window is counted in the platform's `remaining` (observed, or taken at
    // grant). One that left our window has left the platform's too — ours runs from the
    // response, the platform's from arrival — so it is free there again: no need to wait
    // for the Reset, which the platform rounds up to the next whole second.
    if (this.server && left > 0) this.server.remaining = Math.min(this.limit, this.server.remaining + left);
    if (this.server && now >= this.server.resetAt) this.server = undefined;
  }

  private grant(waiter: Waiter, now: number, priority: RequestPriority): void {
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
    waiter.resolve(this.take(now, priority));
  }

  /** Counts one request as sent and in flight; its release frees the place. */
  private take(now: number, priority: RequestPriority): ReleaseFn {
    this.inFlight += 1;
    this.totalSent += 1;
    if (priority !== "launch") this.normalsSent.push(now);
    if (this.server) this.server.remaining -= 1;
    const probe = now < this.fullUntil && !this.server;
    if (probe) this.probing = true;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (probe) this.probing = false;
      this.inFlight -= 1;
      this.done.push(Math.max(now, this.now()));
      this.pump();
    };
    (release as NumberedRelease)[SENT] = this.totalSent;
    return release;
  }

  private wakeAt(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(1, at - this.now()));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
