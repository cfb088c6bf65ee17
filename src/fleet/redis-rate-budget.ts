/**
 * The shared rate budget: one sliding window per API key (keyed by its hash) across every
 * instance, admitted atomically in Redis (see rate-budget-scripts.ts for the algorithm).
 *
 * Per call: a local gate first (this instance's `maxConcurrency`, launch before normal,
 * abort-aware: an in-process budget with no rate limit), then the shared script. The
 * script either admits the call, or reserves the earliest slot that frees and tells the
 * caller how long to sleep: each waiter wakes once, at its turn, so a storm does not
 * become a polling storm. A caller that gives up releases its reservation.
 *
 * While Redis is unreachable (see connection.ts) calls go through this instance's
 * fallback: an in-process budget of `limit ÷ expectedInstances`. Calls sleeping on a
 * reservation wake at least every second to notice an outage.
 */
import { randomBytes } from "node:crypto";
import type { Redis as RedisClient } from "ioredis";
import { createRateBudget, type RateBudget, type RateLimitObservation, type ReleaseFn } from "../platform/rate-budget.js";
import type { RequestPriority } from "../platform/types.js";
import { WindowDetector } from "../platform/window-detector.js";
import type { FleetConnection } from "./connection.js";
import type { FleetRateBudgetStats, SharedBudget } from "./fleet.js";

/** How much of a reservation's sleep passes before an outage (or a shorter real window) is noticed, at most. */
const WAKE_EVERY_MS = 1000;
/** A long reservation is looked at again this often: the fleet may have learnt a shorter real window since. */
const RECHECK_EVERY_MS = 5000;
/** How long a launch's reservation keeps normal calls back after its time, if its instance died. */
const LAUNCH_GRACE_MS = 2000;
/** In-flight lease: longer than any call's deadline; lapses only when an instance died mid-call. */
const FLIGHT_LEASE_MS = 120_000;
/** How long shared platform facts (limit, detected window) are kept without a new observation. */
const META_TTL_MS = 10 * 60_000;

export interface SharedBudgetSettings {
  prefix: string;
  limit: number;
  windowMs: number;
  maxConcurrency: number;
  launchShare: number;
  expectedInstances: number;
}


/** What the scripts return: [waitMs, status, sentInWindow, pausedForMs, serverRemaining, windowMs]. */
type Reply = [number, number, number, number, number, number];
type Scripted = RedisClient & Record<"eoaAcquire" | "eoaRelease" | "eoaAbandon" | "eoaPause" | "eoaObserve" | "eoaStats", (...args: (string | number)[]) => Promise<unknown>>;

export class SharedRateBudget implements SharedBudget {
  private readonly keys: string[];
  private readonly gate: RateBudget;
  private readonly fallback: RateBudget;
  private readonly detector: WindowDetector;
  private readonly perKey = new Map<string, SharedRateBudget>();
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
    const base = `${settings.prefix}:{rb:${budgetId}}`;
    this.keys = ["window", "flight", "launches", "pause", "server", "meta", "normals"].map((k) => `${base}:${k}`);
    this.gate = createRateBudget({ limit: Number.MAX_SAFE_INTEGER, maxConcurrency: settings.maxConcurrency });
    this.fallback = createRateBudget({
      limit: Math.max(1, Math.floor(settings.limit / settings.expectedInstances)),
      windowMs: settings.windowMs,
      maxConcurrency: settings.maxConcurrency,
    });
    this.detector = new WindowDetector(settings.windowMs);
  }

  /** The budget of one API key, by its hash: what `createPlatformClient` asks for. */
  forKey(keyHash: string): SharedRateBudget {
    let budget = this.perKey.get(keyHash);
    if (!budget) {
      budget = new SharedRateBudget(this.connection, this.settings, keyHash);
      this.perKey.set(keyHash, budget);
    }
    return budget;
  }

  async acquire(priority: RequestPriority, signal?: AbortSignal): Promise<ReleaseFn> {
    const lane: RequestPriority = priority === "launch" ? "launch" : "normal";
    this.waiting[lane] += 1;
    let releaseGate: ReleaseFn | undefined;
    try {
      releaseGate = await this.gate.acquire(lane, signal);
      const shared = this.connection.up ? await this.acquireShared(lane, signal) : undefined;
      const releaseShared = shared?.release ?? (await this.fallback.acquire(lane, signal));
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
      };
      if (shared) this.callIds.set(release, shared.id);
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
        reply = await this.script("eoaAcquire", id, priority, this.settings.limit, this.windowMs, this.settings.launchShare, FLIGHT_LEASE_MS, LAUNCH_GRACE_MS, mode, reservedOn) as Reply;
      } catch {
        return undefined;
      }
      this.remember(reply);
      const [waitMs, status] = reply;
      if (status === 1) return { id, release: () => { this.script("eoaRelease", id, "", this.settings.limit, this.windowMs).catch(() => {}); } };
      reserved = status === 2;
      mode = reserved ? "due" : "new";
      // Reserved on a window the fleet may since have found to be shorter (issue part 3):
      // wake early to look again when it did, or every few seconds on a long wait.
      reservedOn = reply[5];
      const sleptSince = Date.now();
      const slept = await this.sleep(waitMs, signal, () => this.windowMs < reservedOn || Date.now() - sleptSince >= RECHECK_EVERY_MS);
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
    this.fallback.observe(observation);
    const { limit, remaining, resetAt } = observation;
    if (limit !== undefined && limit > 0) this.shared.platformLimit = limit;
    if (!this.connection.up) return;
    const window = this.detector.windowMs;
    this.script("eoaObserve", limit ?? 0, remaining ?? -1, resetAt === undefined ? 0 : Math.min(resetAt - now, this.settings.windowMs + 1000),
      window < this.settings.windowMs ? window : 0, META_TTL_MS, (call && this.callIds.get(call)) ?? "").catch(() => {});
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
    const [sent, total, inFlight, pausedForMs, remaining, windowMs, limit, launches] = await this.script("eoaStats", "", "", this.settings.limit, this.windowMs) as number[];
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
    return Math.min(this.settings.limit, this.shared.platformLimit);
  }

  /** The configured window, or the shorter real one detected here or by any instance. */
  private get windowMs(): number {
    return Math.min(this.detector.windowMs, this.shared.windowMs);
  }

  private remember([, , sentInWindow, pausedForMs, serverRemaining, windowMs]: Reply): void {
    this.shared.sentInWindow = sentInWindow;
    this.shared.windowMs = windowMs;
    if (pausedForMs > 0) this.shared.pausedUntil = Math.max(this.shared.pausedUntil, Date.now() + pausedForMs);
    this.shared.serverRemaining = serverRemaining < 0 ? undefined : serverRemaining;
  }

  private script(name: keyof Scripted & `eoa${string}`, ...args: (string | number)[]): Promise<unknown> {
    return this.connection.run((redis) => (redis as Scripted)[name](...this.keys, ...args));
  }

  /** Sleeps `ms`, waking every second to notice an outage or `recheck()`; "aborted" if the signal fired. */
  private async sleep(ms: number, signal: AbortSignal | undefined, recheck: () => boolean): Promise<"ok" | "aborted" | "down"> {
    const until = Date.now() + ms;
    for (;;) {
      if (signal?.aborted) return "aborted";
      if (!this.connection.up) return "down";
      if (recheck()) return "ok";
      const left = until - Date.now();
      if (left <= 0) return "ok";
      await new Promise<void>((resolve) => {
        const done = (): void => { clearTimeout(timer); signal?.removeEventListener("abort", done); resolve(); };
        const timer = setTimeout(done, Math.min(left, WAKE_EVERY_MS));
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }
}
