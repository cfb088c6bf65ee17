/**
 * The shared rate budget: one sliding window per API key (keyed by its hash) across every
 * instance, admitted atomically in Redis (see rate-budget-acquire.ts for the algorithm).
 *
 * Per call: a local gate first (this instance's `maxConcurrency`, launch before normal,
 * abort-aware: an in-process budget with no rate limit), then the shared script. The
 * script either admits the call, or reserves the earliest slot that frees and tells the
 * caller how long to sleep: each waiter wakes once, at its turn, so a storm does not
 * become a polling storm. A caller that gives up releases its reservation.
 *
 * While Redis is unreachable (see connection.ts) calls go through this instance's
 * fallback (budget-fallback.ts): an in-process budget of `limit ÷ expectedInstances` (and
 * that share of a Remaining the platform reports). Calls sleeping on a reservation wake at
 * least every second to notice an outage. When Redis goes away after this instance used
 * it, the fallback takes the window to be full for one window length (what was in it is
 * out of reach) and learns from the platform's headers, one probe at a time.
 *
 * When Redis comes back empty (the window's epoch key is gone, see rate-budget-acquire.ts)
 * the shared window is likewise taken to be full for one window length, with one probe
 * fleet-wide. Its name: `nameKey(keyHash)`, an HMAC under a key derived from the fleet
 * secret (see redis-fleet.ts). One budget per key (key-budgets.ts); the scripts run
 * through rate-budget-commands.ts; a reservation's sleep: reservation-sleep.ts.
 */
import { randomBytes } from "node:crypto";
import { createRateBudget, type KeyLimit, type RateBudget, type RateLimitObservation, type ReleaseFn } from "../platform/rate-budget.js";
import type { RequestPriority } from "../platform/types.js";
import { WindowDetector } from "../platform/window-detector.js";
import { BudgetFallback } from "./budget-fallback.js";
import type { FleetConnection } from "./connection.js";
import { KeyBudgets } from "./key-budgets.js";
import { budgetScript, scriptLimit, type BudgetScript, type Reply } from "./rate-budget-commands.js";
import { sleepOnReservation } from "./reservation-sleep.js";
import { keyLimitSettings, type SharedBudgetSettings } from "./shared-budget-settings.js";
import { FLIGHT_LEASE_MS, LAUNCH_GRACE_MS, META_TTL_WINDOWS, PROBE_LEASE_MS, RECHECK_EVERY_MS, RETURN_WITHIN_MS } from "./rate-budget-timings.js";
import type { FleetRateBudgetStats, SharedBudget } from "./fleet.js";

/**
 * The window's keys (its epoch too) expire two windows after their last call stops
 * counting (rate-budget-prelude.ts). An instance idle for this many windows forgets the
 * epoch it knew, earlier than the expiry, so a window that expired for being idle is not
 * taken for one Redis lost (which would hold the next call back a whole window).
 */
const FORGET_EPOCH_WINDOWS = 1.5;
/** The epoch an instance claims to have known when it starts mid-rotation (see `renamed`). */
const RENAMED = "renamed";

export class SharedRateBudget implements SharedBudget {
  /** Runs a script on this key's window. */
  private readonly script: BudgetScript;
  private readonly gate: RateBudget;
  private readonly fallback: BudgetFallback;
  /** The window's epoch in Redis as this instance last saw it ("" before the first script). */
  private epoch: string;
  /** When this instance last ran a script that refreshes the window's lifetime (local ms). */
  private lastScriptAt = 0;
  private readonly detector: WindowDetector;
  /** The budget of each API key a client holds (weakly, see key-budgets.ts). */
  private readonly perKey = new KeyBudgets<SharedRateBudget, KeyLimit>((keyHash, keyLimit) => {
    const budget = new SharedRateBudget(this.connection, { ...this.settings, ...keyLimitSettings(this.settings.fleetLimit, keyLimit) }, this.settings.nameKey(keyHash));
    return { budget, stopListening: budget.stopListening };
  });
  /** Stops this budget's listener for Redis coming back (it holds the budget weakly). */
  private readonly stopListening: () => void;
  private readonly instance = randomBytes(6).toString("base64url");
  private seq = 0;
  /** The Redis id of each call admitted through Redis, by its release function (what `observe` is given). */
  private readonly callIds = new WeakMap<ReleaseFn, string>();
  private waiting: Record<RequestPriority, number> = { launch: 0, normal: 0 };
  private inFlight = 0;
  private totalSent = 0;
  /** Last fleet-wide figures a script returned, with the local time they were read. */
  private shared = { sentInWindow: 0, pausedUntil: 0, serverRemaining: undefined as number | undefined, platformLimit: Infinity, windowMs: Infinity };

  constructor(private readonly connection: FleetConnection, private readonly settings: SharedBudgetSettings, readonly budgetId: string) {
    this.script = budgetScript(connection, settings.prefix, budgetId);
    this.gate = createRateBudget({ limit: Number.MAX_SAFE_INTEGER, maxConcurrency: settings.maxConcurrency, normalShare: settings.normalShare });
    this.fallback = new BudgetFallback(connection, settings, this.script, () => this.windowMs);
    this.epoch = settings.renamed ? RENAMED : "";
    this.detector = new WindowDetector(settings.windowMs);
    this.stopListening = SharedRateBudget.returnOnUp(connection, new WeakRef(this));
  }

  /**
   * At once, not at this instance's next call: the other instances count them from then.
   * Weakly: the connection outlives the budgets of idle organizations. Made here, not in the
   * constructor: V8 gives a scope's closures one shared context, and the constructor's
   * `() => this.windowMs` would put the budget in it.
   */
  private static returnOnUp(connection: FleetConnection, self: WeakRef<SharedRateBudget>): () => void {
    return connection.onUp(() => { void self.deref()?.fallback.returnToRedis(); });
  }

  /**
   * The budget of one API key, by its hash: what `createPlatformClient` asks for, with the
   * limit it resolved for the key (the first client of a key sets it).
   */
  forKey(keyHash: string, keyLimit?: KeyLimit): SharedRateBudget {
    return this.perKey.forKey(keyHash, keyLimit);
  }

  /** How many keys' budgets this one holds (collected ones leave). */
  get keyBudgets(): number {
    return this.perKey.size;
  }

  async acquire(priority: RequestPriority, signal?: AbortSignal): Promise<ReleaseFn> {
    const lane: RequestPriority = priority === "launch" ? "launch" : "normal";
    this.waiting[lane] += 1;
    let releaseGate: ReleaseFn | undefined;
    try {
      releaseGate = await this.gate.acquire(lane, signal);
      let shared: { id: string; release: ReleaseFn } | undefined;
      let releaseShared: ReleaseFn | undefined;
      let fallbackId: string | undefined;
      while (releaseShared === undefined) {
        if (this.connection.up && !this.fallback.returned) await this.fallback.returnToRedis();
        shared = this.connection.up ? await this.acquireShared(lane, signal) : undefined;
        if (shared) {
          this.fallback.usedShared();
          releaseShared = shared.release;
        } else {
          this.fallback.takeOver();
          releaseShared = await this.fallback.acquire(lane, signal);
          if (releaseShared) {
            fallbackId = `${this.instance}:${++this.seq}`;
            this.fallback.sent(fallbackId);
          }
        }
      }
      const gate = releaseGate;
      this.inFlight += 1;
      this.totalSent += 1;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        releaseShared();
        gate();
        if (fallbackId !== undefined) this.fallback.answered(fallbackId);
      };
      if (shared) this.callIds.set(release, shared.id);
      else this.fallback.track(release, releaseShared, fallbackId!);
      return release;
    } catch (error) {
      releaseGate?.();
      throw error;
    } finally {
      this.waiting[lane] -= 1;
    }
  }

  /** Admission through Redis; undefined when Redis failed (the caller then uses the fallback). */
  private async acquireShared(priority: RequestPriority, signal: AbortSignal | undefined): Promise<{ id: string; release: ReleaseFn } | undefined> {
    const id = `${this.instance}:${++this.seq}`;
    let mode: "new" | "due" = "new";
    let reserved = false;
    let reservedOn = 0;
    for (;;) {
      let reply: Reply;
      try {
        // Back from an outage: its first script since (the window may lack what others sent on their fallback).
        const returning = this.connection.backSince > this.lastScriptAt ? 1 : 0;
        if (this.epoch !== RENAMED && this.idle()) this.epoch = "";
        const sentAt = Date.now();
        reply = await this.script("eoaAcquire", id, priority, scriptLimit(this.settings), this.windowMs, this.settings.launchShare, FLIGHT_LEASE_MS, LAUNCH_GRACE_MS, mode, reservedOn,
          this.settings.normalShare, this.epoch, PROBE_LEASE_MS, this.instance, this.settings.expectedInstances, RETURN_WITHIN_MS, this.settings.windowMs, returning) as Reply;
        this.lastScriptAt = sentAt;
      } catch {
        return undefined;
      }
      this.remember(reply);
      const [waitMs, status] = reply;
      if (status === 1) {
        return { id, release: () => { this.lastScriptAt = Date.now(); this.script("eoaRelease", id, "", scriptLimit(this.settings), this.windowMs, this.settings.windowMs).catch(() => {}); } };
      }
      reserved = status === 2;
      mode = reserved ? "due" : "new";
      // Reserved on a window the fleet may since have found to be shorter (a shorter window
      // learnt from the platform's headers):
      // wake early to look again when it did, or every few seconds on a long wait.
      reservedOn = reply[5];
      const sleptSince = Date.now();
      const slept = await sleepOnReservation(this.connection, waitMs, signal, () => this.windowMs < reservedOn || Date.now() - sleptSince >= RECHECK_EVERY_MS);
      if (slept === "aborted") {
        if (reserved) this.script("eoaAbandon", id).catch(() => {});
        throw signal?.reason;
      }
      if (slept === "down") {
        if (reserved) this.script("eoaAbandon", id).catch(() => {});
        return undefined;
      }
    }
  }

  observe(observation: RateLimitObservation, call?: ReleaseFn): void {
    const now = Date.now();
    this.detector.observe(observation, now);
    const own = this.fallback.observe(observation, call);
    const { limit, remaining, resetAt } = observation;
    if (limit !== undefined && limit > 0) this.shared.platformLimit = limit;
    if (!this.connection.up) return;
    const window = this.detector.windowMs;
    const send = (): void => {
      this.script("eoaObserve", limit ?? 0, remaining ?? -1, resetAt === undefined ? 0 : Math.min(resetAt - now, this.settings.windowMs + 1000),
        window < this.settings.windowMs ? window : 0, META_TTL_WINDOWS * this.settings.windowMs, (call && (this.callIds.get(call) ?? this.fallback.idOf(call))) ?? "").catch(() => {});
    };
    // An answer to a fallback call: the shared window takes the fallback's calls in first,
    // so that the Remaining it stores counts those sent after this one as pending.
    if (own && this.fallback.pending()) void this.fallback.returnToRedis().then(send);
    else send();
  }

  pause(untilMs: number): void {
    this.fallback.pause(untilMs);
    this.shared.pausedUntil = Math.max(this.shared.pausedUntil, untilMs);
    const ms = Math.ceil(untilMs - Date.now());
    if (ms > 0 && this.connection.up) this.script("eoaPause", ms).catch(() => {});
  }

  /**
   * This instance's view, without a Redis round trip (the interface is synchronous):
   * fleet-wide figures are those the last script call returned. `sharedStats()` asks Redis.
   */
  stats(): FleetRateBudgetStats {
    if (!this.connection.up) return { ...this.fallback.stats(), mode: "fallback" };
    const now = Date.now();
    return {
      limit: this.limit,
      windowMs: this.windowMs,
      maxConcurrency: this.settings.maxConcurrency,
      queued: { ...this.waiting },
      inFlight: this.inFlight,
      sentInWindow: this.shared.sentInWindow,
      totalSent: this.totalSent,
      pausedUntil: this.shared.pausedUntil > now ? this.shared.pausedUntil : undefined,
      serverRemaining: this.shared.serverRemaining,
      mode: "shared",
    };
  }

  /** Fleet-wide figures read from Redis now. */
  async sharedStats(): Promise<{ sentInWindow: number; reserved: number; inFlight: number; pausedForMs: number; serverRemaining: number | undefined; windowMs: number; limit: number; launchesWaiting: number }> {
    const [sent, total, inFlight, pausedForMs, remaining, windowMs, limit, launches] = await this.script("eoaStats", "", "", scriptLimit(this.settings), this.windowMs) as number[];
    return { sentInWindow: sent!, reserved: total! - sent!, inFlight: inFlight!, pausedForMs: pausedForMs!, serverRemaining: remaining! < 0 ? undefined : remaining, windowMs: windowMs!, limit: limit!, launchesWaiting: launches! };
  }

  /**
   * Roughly how long a launch arriving now waits for a slot, `ahead` launches before it:
   * the pause left, then one slot per `windowMs / limit` beyond what is free now.
   */
  estimateWaitMs(ahead: number): number {
    const s = this.stats();
    const pausedMs = Math.max(0, (s.pausedUntil ?? 0) - Date.now());
    const free = Math.max(0, s.limit - s.sentInWindow);
    const beyond = Math.max(0, ahead + 1 - free);
    return pausedMs + Math.ceil((beyond * s.windowMs) / Math.max(1, s.limit));
  }

  /** ms between calls to use `share` of the rate evenly (the real window when a shorter one was detected). */
  pacingIntervalMs(share: number): number {
    const s = this.stats();
    return Math.ceil(s.windowMs / Math.max(1e-9, s.limit * Math.min(1, Math.max(share, 1e-9))));
  }

  private get limit(): number {
    if (this.settings.learnLimit && this.shared.platformLimit !== Infinity) return this.shared.platformLimit;
    return Math.min(this.settings.limit, this.shared.platformLimit);
  }

  /**
   * Whether this instance has been idle long enough to forget the window's epoch: no script
   * for FORGET_EPOCH_WINDOWS, and Redis not away since the last one. An outage is not
   * idleness: after one longer than that (a 5 s outage at a 1 s window) the epoch still
   * tells a Redis that came back empty from a window that expired, so the window is taken
   * to be full and the fallback's share of the instances not back yet is kept (forgotten,
   * the first instance back took the whole window while the others still sent on their
   * fallback: platform 429s).
   */
  private idle(): boolean {
    return Date.now() - this.lastScriptAt > FORGET_EPOCH_WINDOWS * this.settings.windowMs && this.connection.backSince <= this.lastScriptAt;
  }

  /** The configured window, or the shorter real one detected here or by any instance. */
  private get windowMs(): number {
    return Math.min(this.detector.windowMs, this.shared.windowMs);
  }

  private remember([, , sentInWindow, pausedForMs, serverRemaining, windowMs, epoch]: Reply): void {
    this.epoch = epoch;
    this.shared.sentInWindow = sentInWindow;
    this.shared.windowMs = windowMs;
    if (pausedForMs > 0) this.shared.pausedUntil = Math.max(this.shared.pausedUntil, Date.now() + pausedForMs);
    this.shared.serverRemaining = serverRemaining < 0 ? undefined : serverRemaining;
  }
}
