/**
 * One key's shared budget while Redis is unreachable, and its return to Redis.
 *
 * The fallback is an in-process budget of `limit ÷ expectedInstances` (and that share of the
 * limit the platform states and of a Remaining it reports). When Redis goes away after this instance used it, it
 * takes the window to be full for one window length (what was in it is out of reach) and
 * learns from the platform's headers, one probe at a time. The calls it sent are kept
 * (fallback-calls.ts) and written to the shared window once Redis is back, with a full
 * platform window it learnt of.
 */
import { createFallbackRateBudget, type InProcessRateBudget, type RateBudgetStats, type RateLimitObservation, type ReleaseFn } from "../platform/rate-budget.js";
import type { RequestPriority } from "../platform/types.js";
import type { FleetConnection } from "./connection.js";
import { FallbackCalls } from "./fallback-calls.js";
import { scriptLimit, type BudgetScript } from "./rate-budget-commands.js";
import { FLIGHT_LEASE_MS, LOOK_FOR_REDIS_MS, META_TTL_WINDOWS } from "./rate-budget-timings.js";

/** What the fallback takes of the shared budget's settings: `limit` and `windowMs` are the fleet's, not its share. */
export interface FallbackSettings {
  limit: number;
  /** `limit` is the key environment's default: the platform's stated limit replaces it (see scriptLimit). */
  learnLimit?: boolean;
  windowMs: number;
  maxConcurrency: number;
  normalShare: number;
  expectedInstances: number;
}

export class BudgetFallback {
  private readonly fallback: InProcessRateBudget;
  /** Whether the last call went through Redis: the next one on the fallback then takes the window to be full. */
  private wasShared = false;
  /** The fallback's release function of each call the fallback admitted, by its release function. */
  private readonly fallbackCalls = new WeakMap<ReleaseFn, ReleaseFn>();
  /** The id of each call the fallback admitted, by its release function. */
  private readonly fallbackIds = new WeakMap<ReleaseFn, string>();
  /** The fallback's calls that may still count on the platform: the shared window takes them in when Redis is back. */
  private readonly fallbackSent = new FallbackCalls();
  /** Whether this instance's fallback calls were written to Redis since it last used the fallback. */
  private wasReturned = false;
  private returning: Promise<void> | undefined;

  /** `script` runs on the key's shared window; `windowMs` is the window the budget goes by now (a shorter real one when detected). */
  constructor(private readonly connection: FleetConnection, private readonly settings: FallbackSettings, private readonly script: BudgetScript, private readonly windowMs: () => number) {
    this.fallback = createFallbackRateBudget({
      limit: Math.max(1, Math.floor(settings.limit / settings.expectedInstances)),
      // A default limit is replaced by the platform's stated one, as in the shared window: this instance's share of it.
      learnLimit: settings.learnLimit ?? false,
      windowMs: settings.windowMs,
      maxConcurrency: settings.maxConcurrency,
      normalShare: settings.normalShare,
      platformShare: 1 / settings.expectedInstances,
    });
  }

  /** Whether this instance's fallback calls were written to Redis since it last used the fallback. */
  get returned(): boolean {
    return this.wasReturned;
  }

  /** A call went through Redis. */
  usedShared(): void {
    this.wasShared = true;
  }

  /** A call asks the fallback: the first since calls went through Redis takes the window to be full. */
  takeOver(): void {
    if (this.wasShared) {
      // Redis went away: the calls in the shared window are out of reach, not gone.
      this.wasShared = false;
      this.wasReturned = false;
      this.fallback.assumeFull();
    }
  }

  /**
   * Admission through the fallback; undefined when Redis came back meanwhile (the caller
   * then asks Redis: a call the fallback still held would not be counted there).
   */
  async acquire(lane: RequestPriority, signal: AbortSignal | undefined): Promise<ReleaseFn | undefined> {
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

  /** A call the fallback admitted is sent, as `id`. */
  sent(id: string): void {
    this.fallbackSent.sent(id);
    this.wasReturned = false;
  }

  /** The caller's `release` of a call the fallback admitted, with the fallback's own and the call's id. */
  track(release: ReleaseFn, own: ReleaseFn, id: string): void {
    this.fallbackCalls.set(release, own);
    this.fallbackIds.set(release, id);
  }

  /** The call `id` is answered (released). */
  answered(id: string): void {
    // A fallback call the shared window took in (Redis came back meanwhile): answered there too.
    if (this.fallbackSent.answered(id) && this.connection.up) {
      this.script("eoaRelease", id, "", scriptLimit(this.settings), this.windowMs(), this.settings.windowMs).catch(() => {});
    }
  }

  /** The id of a call the fallback admitted, by the caller's release function. */
  idOf(call: ReleaseFn): string | undefined {
    return this.fallbackIds.get(call);
  }

  /** Learns from an answer; true when `call` is one the fallback admitted. */
  observe(observation: RateLimitObservation, call: ReleaseFn | undefined): boolean {
    // The fallback learns from every answer while Redis is up (it holds nothing else to go
    // on when Redis goes), but once it runs, only from its own calls': an answer to a call
    // admitted through Redis before it went may be older than calls the fallback sent since,
    // and its Remaining would count them as still free.
    const own = call && this.fallbackCalls.get(call);
    if (own) this.fallback.observe(observation, own);
    else if (this.connection.up) this.fallback.observe(observation);
    return own !== undefined;
  }

  /** Whether some call the fallback sent is not in the shared window yet. */
  pending(): boolean {
    return this.fallbackSent.pending(this.windowMs());
  }

  pause(untilMs: number): void {
    this.fallback.pause(untilMs);
  }

  stats(): RateBudgetStats {
    return this.fallback.stats();
  }

  /**
   * Back on Redis after running on the fallback: the fallback's calls that may still count
   * on the platform go into the shared window (see fallback-calls.ts), once, however many
   * calls ask at the same time.
   */
  returnToRedis(): Promise<void> {
    if (!this.returning) {
      const returning = this.adoptFallbackCalls();
      this.returning = returning;
      void returning.finally(() => { if (this.returning === returning) this.returning = undefined; });
    }
    return this.returning;
  }

  private async adoptFallbackCalls(): Promise<void> {
    const { args, ids, inFlight } = this.fallbackSent.adopt(this.windowMs());
    try {
      if (args.length > 0) await this.script("eoaAdopt", FLIGHT_LEASE_MS, this.windowMs(), ...args);
      for (const id of this.fallbackSent.written(ids, inFlight)) {
        this.script("eoaRelease", id, "", scriptLimit(this.settings), this.windowMs(), this.settings.windowMs).catch(() => {});
      }
      this.shareWhatFallbackLearnt();
      this.wasReturned = true;
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
}
