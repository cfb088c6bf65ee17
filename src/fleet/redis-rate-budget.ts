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
 * fallback: an in-process budget of `limit ÷ expectedInstances` (and that share of a
 * Remaining the platform reports). Calls sleeping on a reservation wake at least every
 * second to notice an outage. When Redis goes away after this instance used it, the
 * fallback takes the window to be full for one window length (what was in it is out of
 * reach) and learns from the platform's headers, one probe at a time.
 *
 * When Redis comes back empty (the window's epoch key is gone, see rate-budget-scripts.ts)
 * the shared window is likewise taken to be full for one window length, with one probe
 * fleet-wide. Its name: `nameKey(keyHash)`, an HMAC under a key derived from the fleet
 * secret (see redis-fleet.ts).
 */
import { randomBytes } from "node:crypto";
import type { Redis as RedisClient } from "ioredis";
import { createFallbackRateBudget, createRateBudget, type InProcessRateBudget, type RateBudget, type RateLimitObservation, type ReleaseFn } from "../platform/rate-budget.js";
import type { RequestPriority } from "../platform/types.js";
import { WindowDetector } from "../platform/window-detector.js";
import type { FleetConnection } from "./connection.js";
import { ADOPT, FallbackCalls } from "./fallback-calls.js";
import { ABANDON, ACQUIRE, BUDGET_KEYS, OBSERVE, PAUSE, RELEASE, STATS } from "./rate-budget-scripts.js";
import type { FleetRateBudgetStats, SharedBudget } from "./fleet.js";

/** How much of a reservation's sleep passes before an outage (or a shorter real window) is noticed, at most. */
const WAKE_EVERY_MS = 1000;
/** A long reservation is looked at again this often: the fleet may have learnt a shorter real window since. */
const RECHECK_EVERY_MS = 5000;
/** How long a launch's reservation keeps normal calls back after its time, if its instance died. */
const LAUNCH_GRACE_MS = 2000;
/** In-flight lease: longer than any call's deadline; lapses only when an instance died mid-call. */
const FLIGHT_LEASE_MS = 120_000;
/** How long shared platform facts (limit, detected window) are kept without a new observation, in windows (10 min at 60 s). */
const META_TTL_WINDOWS = 10;
/**
 * The window's keys (its epoch too) expire two windows after their last call stops
 * counting (rate-budget-scripts.ts). An instance idle for this many windows forgets the
 * epoch it knew, earlier than the expiry, so a window that expired for being idle is not
 * taken for one Redis lost (which would hold the next call back a whole window).
 */
const FORGET_EPOCH_WINDOWS = 1.5;
/** Lease of the one probe sent while the window is taken to be full: longer than a call's timeout, short if its instance died. */
const PROBE_LEASE_MS = 15_000;
/** How often a call held by the fallback looks whether Redis is back (it then goes through Redis). */
const LOOK_FOR_REDIS_MS = 100;
/**
 * After Redis came back empty, how long instances may still be reconnecting (ioredis
 * retries at most every 2 s, then the first command): their fallback share is kept meanwhile.
 */
const RETURN_WITHIN_MS = 3000;
/** The epoch an instance claims to have known when it starts mid-rotation (see `renamed`). */
const RENAMED = "renamed";

export interface SharedBudgetSettings {
  prefix: string;
  limit: number;
  windowMs: number;
  maxConcurrency: number;
  launchShare: number;
  normalShare: number;
  expectedInstances: number;
  /** The Redis name of a key's window, from the key's hash (an HMAC under the fleet secret). */
  nameKey: (keyHash: string) => string;
  /**
   * The window's name may just have changed (a secret rotation in progress): a window
   * found new is then taken to be full for one window length, as after a Redis restart.
   */
  renamed: boolean;
}

/** What the scripts return: [waitMs, status, sentInWindow, pausedForMs, serverRemaining, windowMs, epoch]. */
type Reply = [number, number, number, number, number, number, string];
type Scripted = RedisClient & Record<"eoaAcquire" | "eoaRelease" | "eoaAbandon" | "eoaPause" | "eoaObserve" | "eoaStats" | "eoaAdopt", (...args: (string | number)[]) => Promise<unknown>>;

/** Defines the budget's scripts on a client (`redis.defineCommand`). */
export function defineBudgetScripts(define: (name: string, lua: string, keys: number) => void): void {
  for (const [name, lua] of Object.entries({ eoaAcquire: ACQUIRE, eoaRelease: RELEASE, eoaAbandon: ABANDON, eoaPause: PAUSE, eoaObserve: OBSERVE, eoaStats: STATS, eoaAdopt: ADOPT })) {
    define(name, lua, BUDGET_KEYS);
  }
}

export class SharedRateBudget implements SharedBudget {
  private readonly keys: string[];
  private readonly gate: RateBudget;
  private readonly fallback: InProcessRateBudget;
  /** The window's epoch in Redis as this instance last saw it ("" before the first script). */
  private epoch: string;
  /** When this instance last ran a script that refreshes the window's lifetime (local ms). */
  private lastScriptAt = 0;
  /** Whether the last call went through Redis: the next one on the fallback then takes the window to be full. */
  private wasShared = false;
  private readonly detector: WindowDetector;
  /**
   * The budget of each API key a client holds: weakly, so that an organization's budget
   * (its fallback, its queues) goes with the last client of its key, not with the process
   * (with a thousand organizations the map would otherwise only grow). A budget collected
   * leaves the map and stops listening for Redis coming back.
   */
  private readonly perKey = new Map<string, WeakRef<SharedRateBudget>>();
  private readonly forgotten = new FinalizationRegistry<{ keyHash: string; stopListening: () => void }>(({ keyHash, stopListening }) => {
    stopListening();
    if (this.perKey.get(keyHash)?.deref() === undefined) this.perKey.delete(keyHash);
  });
  /** Stops this budget's listener for Redis coming back (it holds the budget weakly). */
  private readonly stopListening: () => void;
  private readonly instance = randomBytes(6).toString("base64url");
  private seq = 0;
  /** The Redis id of each call admitted through Redis, by its release function (what `observe` is given). */
  private readonly callIds = new WeakMap<ReleaseFn, string>();
  /** The fallback's release function of each call the fallback admitted, by its release function. */
  private readonly fallbackCalls = new WeakMap<ReleaseFn, ReleaseFn>();
  /** The id of each call the fallback admitted, by its release function. */
  private readonly fallbackIds = new WeakMap<ReleaseFn, string>();
  /** The fallback's calls that may still count on the platform: the shared window takes them in when Redis is back. */
  private readonly fallbackSent = new FallbackCalls();
  /** Whether this instance's fallback calls were written to Redis since it last used the fallback. */
  private returned = false;
  private returning: Promise<void> | undefined;
  private waiting: Record<RequestPriority, number> = { launch: 0, normal: 0 };
  private inFlight = 0;
  private totalSent = 0;
  /** Last fleet-wide figures a script returned, with the local time they were read. */
  private shared = { sentInWindow: 0, pausedUntil: 0, serverRemaining: undefined as number | undefined, platformLimit: Infinity, windowMs: Infinity };

  constructor(private readonly connection: FleetConnection, private readonly settings: SharedBudgetSettings, readonly budgetId: string) {
    const base = `${settings.prefix}:{rb:${budgetId}}`;
    this.keys = ["window", "flight", "launches", "pause", "server", "meta", "normals", "kept", "epoch", "probe", "sends"].map((k) => `${base}:${k}`);
    this.gate = createRateBudget({ limit: Number.MAX_SAFE_INTEGER, maxConcurrency: settings.maxConcurrency, normalShare: settings.normalShare });
    this.fallback = createFallbackRateBudget({
      limit: Math.max(1, Math.floor(settings.limit / settings.expectedInstances)),
      windowMs: settings.windowMs,
      maxConcurrency: settings.maxConcurrency,
      normalShare: settings.normalShare,
      remainingShare: 1 / settings.expectedInstances,
    });
    this.epoch = settings.renamed ? RENAMED : "";
    this.detector = new WindowDetector(settings.windowMs);
    // At once, not at this instance's next call: the other instances count them from then.
    // Weakly: the connection outlives the budgets of idle organizations.
    const self = new WeakRef(this);
    this.stopListening = connection.onUp(() => { void self.deref()?.returnToRedis(); });
  }

  /** The budget of one API key, by its hash: what `createPlatformClient` asks for. */
  forKey(keyHash: string): SharedRateBudget {
    let budget = this.perKey.get(keyHash)?.deref();
    if (!budget) {
      budget = new SharedRateBudget(this.connection, this.settings, this.settings.nameKey(keyHash));
      this.perKey.set(keyHash, new WeakRef(budget));
      this.forgotten.register(budget, { keyHash, stopListening: budget.stopListening });
    }
    return budget;
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
        if (this.connection.up && !this.returned) await this.returnToRedis();
        shared = this.connection.up ? await this.acquireShared(lane, signal) : undefined;
        if (shared) {
          this.wasShared = true;
          releaseShared = shared.release;
        } else {
          if (this.wasShared) {
            // Redis went away: the calls in the shared window are out of reach, not gone.
            this.wasShared = false;
            this.returned = false;
            this.fallback.assumeFull();
          }
          releaseShared = await this.acquireFallback(lane, signal);
          if (releaseShared) {
            fallbackId = `${this.instance}:${++this.seq}`;
            this.fallbackSent.sent(fallbackId);
            this.returned = false;
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
        // A fallback call the shared window took in (Redis came back meanwhile): answered there too.
        if (fallbackId !== undefined && this.fallbackSent.answered(fallbackId) && this.connection.up) {
          this.script("eoaRelease", fallbackId, "", this.settings.limit, this.windowMs, this.settings.windowMs).catch(() => {});
        }
      };
      if (shared) this.callIds.set(release, shared.id);
      else {
        this.fallbackCalls.set(release, releaseShared);
        this.fallbackIds.set(release, fallbackId!);
      }
      return release;
    } catch (error) {
      releaseGate?.();
      throw error;
    } finally {
      this.waiting[lane] -= 1;
    }
  }

  /**
   * Admission through the fallback; undefined when Redis came back meanwhile (the caller
   * then asks Redis: a call the fallback still held would not be counted there).
   */
  private async acquireFallback(lane: RequestPriority, signal: AbortSignal | undefined): Promise<ReleaseFn | undefined> {
    const local = new AbortController();
    const back = new Error("Redis is back");
    const onAbort = (): void => local.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    // The instant Redis is found again, not at the next look: an answer arriving in between
    // would let the fallback admit a burst on its Remaining that the shared window never
    // counts (the fleet then sends it a second time: 12 platform 429s in a soak run).
    const wasDown = !this.connection.up;
    const stopListening = this.connection.onUp(() => local.abort(back));
    // Entered while Redis is up (a script failed without an outage): look now and then.
    const look = setInterval(() => { if (this.connection.up) local.abort(back); }, LOOK_FOR_REDIS_MS);
    try {
      const release = await this.fallback.acquire(lane, local.signal);
      if (wasDown && this.connection.up) {
        // Granted in the turn Redis came back: not sent, so the shared window decides instead.
        release();
        return undefined;
      }
      return release;
    } catch (error) {
      if (error === back) return undefined;
      throw error;
    } finally {
      clearInterval(look);
      stopListening();
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Back on Redis after running on the fallback: the fallback's calls that may still count
   * on the platform go into the shared window (see fallback-calls.ts), once, however many
   * calls ask at the same time.
   */
  private returnToRedis(): Promise<void> {
    if (!this.returning) {
      const returning = this.adoptFallbackCalls();
      this.returning = returning;
      void returning.finally(() => { if (this.returning === returning) this.returning = undefined; });
    }
    return this.returning;
  }

  private async adoptFallbackCalls(): Promise<void> {
    const { args, ids, inFlight } = this.fallbackSent.adopt(this.windowMs);
    try {
      if (args.length > 0) await this.script("eoaAdopt", FLIGHT_LEASE_MS, this.windowMs, ...args);
      for (const id of this.fallbackSent.written(ids, inFlight)) {
        this.script("eoaRelease", id, "", this.settings.limit, this.windowMs, this.settings.windowMs).catch(() => {});
      }
      this.shareWhatFallbackLearnt();
      this.returned = true;
    } catch {
      // Redis failed again: the calls stay on the fallback, and are written at the next return.
    }
  }

  /**
   * A full platform window the fallback learnt of goes to Redis first, so the fleet does
   * not probe into it (a Redis that came back empty knows nothing of the platform).
   */
  private shareWhatFallbackLearnt(): void {
    const fullUntil = this.fallback.platformFullUntil();
    const ms = fullUntil === undefined ? 0 : Math.ceil(fullUntil - Date.now());
    if (ms > 0) this.script("eoaObserve", 0, 0, ms, 0, META_TTL_WINDOWS * this.settings.windowMs, "").catch(() => {});
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
        if (this.epoch !== RENAMED && Date.now() - this.lastScriptAt > FORGET_EPOCH_WINDOWS * this.settings.windowMs) this.epoch = "";
        const sentAt = Date.now();
        reply = await this.script("eoaAcquire", id, priority, this.settings.limit, this.windowMs, this.settings.launchShare, FLIGHT_LEASE_MS, LAUNCH_GRACE_MS, mode, reservedOn,
          this.settings.normalShare, this.epoch, PROBE_LEASE_MS, this.instance, this.settings.expectedInstances, RETURN_WITHIN_MS, this.settings.windowMs) as Reply;
        this.lastScriptAt = sentAt;
      } catch {
        return undefined;
      }
      this.remember(reply);
      const [waitMs, status] = reply;
      if (status === 1) {
        return { id, release: () => { this.lastScriptAt = Date.now(); this.script("eoaRelease", id, "", this.settings.limit, this.windowMs, this.settings.windowMs).catch(() => {}); } };
      }
      reserved = status === 2;
      mode = reserved ? "due" : "new";
      // Reserved on a window the fleet may since have found to be shorter (a shorter window
      // learnt from the platform's headers):
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
    // The fallback learns from every answer while Redis is up (it holds nothing else to go
    // on when Redis goes), but once it runs, only from its own calls': an answer to a call
    // admitted through Redis before it went may be older than calls the fallback sent since,
    // and its Remaining would count them as still free.
    const own = call && this.fallbackCalls.get(call);
    if (own) this.fallback.observe(observation, own);
    else if (this.connection.up) this.fallback.observe(observation);
    const { limit, remaining, resetAt } = observation;
    if (limit !== undefined && limit > 0) this.shared.platformLimit = limit;
    if (!this.connection.up) return;
    const window = this.detector.windowMs;
    const send = (): void => {
      this.script("eoaObserve", limit ?? 0, remaining ?? -1, resetAt === undefined ? 0 : Math.min(resetAt - now, this.settings.windowMs + 1000),
        window < this.settings.windowMs ? window : 0, META_TTL_WINDOWS * this.settings.windowMs, (call && (this.callIds.get(call) ?? this.fallbackIds.get(call))) ?? "").catch(() => {});
    };
    // An answer to a fallback call: the shared window takes the fallback's calls in first,
    // so that the Remaining it stores counts those sent after this one as pending.
    if (own && this.fallbackSent.pending(this.windowMs)) void this.returnToRedis().then(send);
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

  private remember([, , sentInWindow, pausedForMs, serverRemaining, windowMs, epoch]: Reply): void {
    this.epoch = epoch;
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
