/**
 * Each LMS's gate in the score outbox, so that one LMS that hangs, fails or throttles
 * never holds another school's grades. An LMS is a lane: the origin of the AGS URLs its
 * scores go to (`ltiLaneOf`). Per lane:
 *
 * - a share of the workers: at most `perLmsConcurrency` posts in flight from this
 *   instance; a lane at its share is skipped by the next claims, so the other lanes'
 *   scores take the free workers;
 * - a pause: a 429 or 503 with `Retry-After` stops every post to that LMS until then
 *   (capped at `MAX_PAUSE_MS`), fleet-wide: the pause is kept in the fleet's single-use
 *   store (Redis with `redisFleet`), which each instance reads before a post;
 * - a circuit breaker (the fleet's, fleet-wide with `redisFleet`): repeated time-outs,
 *   unreachable answers or 5xx open it, and the lane is left alone until a probe passes.
 *
 * What this instance learned (a pause, an open breaker) is kept locally too, so a claim
 * skips the lane without asking the fleet; the fleet is asked once per post.
 */
import { createHash } from "node:crypto";
import type { Logger } from "../../core/logger.js";
import type { BreakerVerdict, CircuitBreakerStore } from "../../fleet/circuit-breaker.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import { SendFailure } from "./send-failure.js";

/** The longest pause an LMS's `Retry-After` sets (a longer one is read as this). */
export const MAX_PAUSE_MS = 3_600_000;
/** A 429 or 503 without a (readable) `Retry-After` pauses the LMS this long. */
export const DEFAULT_PAUSE_MS = 5_000;

export type Admission = { ok: true; probe: boolean } | { ok: false; untilMs: number; why: "paused" | "breaker" };

export interface LmsGateDeps {
  perLms: number;
  pauses: SingleUseStore;
  breaker: CircuitBreakerStore;
  logger: Logger;
  now?: () => number;
}

export const pauseKey = (lane: string) => `lti-pause:${createHash("sha256").update(lane).digest("base64url").slice(0, 32)}`;
const breakerScope = (lane: string) => `lti-ags\u0000${lane}`;

/** The breaker's verdict on a post: the LMS failing (no answer, 5xx) or working (any other answer); a 429 proves neither. */
export function verdictOf(error: unknown): BreakerVerdict {
  if (error === undefined) return "success";
  if (!(error instanceof SendFailure)) return "failure";
  const status = error.answer?.status;
  // No answer: unreachable or timed out (a failure), or never sent (a refusal here: proves nothing).
  if (status === undefined) return error.retry ? "failure" : "neutral";
  if (status === 429) return "neutral";
  return status >= 500 ? "failure" : "success";
}

/** How long an answer pauses its LMS, ms (undefined: it does not). */
export function pauseOf(error: unknown): number | undefined {
  if (!(error instanceof SendFailure) || (error.answer?.status !== 429 && error.answer?.status !== 503)) return undefined;
  const asked = error.answer.retryAfterMs;
  return Math.min(MAX_PAUSE_MS, asked === undefined ? DEFAULT_PAUSE_MS : Math.max(0, asked));
}

export class LmsGate {
  private readonly inFlight = new Map<string, number>();
  /** Lanes this instance knows to be paused or broken, until when (ms). */
  private readonly closedUntil = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly deps: LmsGateDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Lanes the next claim should skip: at their share here, or known paused or broken. */
  blocked(): string[] {
    const now = this.now();
    for (const [lane, until] of this.closedUntil) if (until <= now) this.closedUntil.delete(lane);
    const full = [...this.inFlight].filter(([, n]) => n >= this.deps.perLms).map(([lane]) => lane);
    return [...new Set([...full, ...this.closedUntil.keys()])];
  }

  hasRoom(lane: string): boolean {
    return (this.inFlight.get(lane) ?? 0) < this.deps.perLms && (this.closedUntil.get(lane) ?? 0) <= this.now();
  }

  /** When a lane this instance knows to be paused or broken may take posts again (undefined: it may now). */
  reopensAt(lane: string): number | undefined {
    const until = this.closedUntil.get(lane);
    return until !== undefined && until > this.now() ? until : undefined;
  }

  begin(lane: string): void {
    this.inFlight.set(lane, (this.inFlight.get(lane) ?? 0) + 1);
  }

  end(lane: string): void {
    const n = (this.inFlight.get(lane) ?? 1) - 1;
    if (n > 0) this.inFlight.set(lane, n);
    else this.inFlight.delete(lane);
  }

  /** Before a post: the fleet's pause of this LMS, then its breaker. A store that fails lets the post go. */
  async admit(lane: string): Promise<Admission> {
    const paused = Number(await this.deps.pauses.peek(pauseKey(lane)).catch(() => undefined));
    if (Number.isFinite(paused) && paused > this.now()) {
      this.closedUntil.set(lane, paused);
      return { ok: false, untilMs: paused, why: "paused" };
    }
    const admission = await this.deps.breaker.admit(breakerScope(lane)).catch(() => ({ allowed: true as const, probe: false }));
    if (admission.allowed) return { ok: true, probe: admission.probe };
    const untilMs = this.now() + admission.retryAfterMs;
    this.closedUntil.set(lane, untilMs);
    return { ok: false, untilMs, why: "breaker" };
  }

  /** After a post (`error` undefined: it went through): the breaker's verdict, and the LMS's pause if it asked for one; answers the pause's end. */
  async settle(lane: string, error: unknown, probe: boolean): Promise<number | undefined> {
    const verdict = verdictOf(error);
    const transition = await this.deps.breaker.settle(breakerScope(lane), verdict, probe).catch(() => undefined);
    if (transition === "opened") {
      this.deps.logger.warn({ event: "lti_lms_breaker", lms: lane, outcome: "open" }, "an LMS keeps failing score posts: its scores wait (the circuit breaker is open) while other LMSs' go on");
    }
    const pauseMs = pauseOf(error);
    if (pauseMs === undefined) return undefined;
    const untilMs = this.now() + pauseMs;
    if ((this.closedUntil.get(lane) ?? 0) < untilMs) this.closedUntil.set(lane, untilMs);
    if (pauseMs > 0) await this.deps.pauses.put(pauseKey(lane), String(untilMs), pauseMs).catch(() => undefined);
    this.deps.logger.info({ event: "lti_lms_paused", lms: lane, status: (error as SendFailure).answer?.status, pauseMs }, "an LMS asked the tool to wait (Retry-After): no score goes to it until then, from any instance");
    return untilMs;
  }
}
