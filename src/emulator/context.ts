/**
 * Everything the request handlers share: settings, records, tickets, the rate limiter,
 * faults and the request log. One object, built once per emulator, passed to handlers so
 * they stay plain functions that are easy to read and test.
 */
import type { Logger } from "../core/logger.js";
import { FaultQueue, Latency } from "./faults.js";
import type { ApiEnv, RateLimits, ResolvedOptions } from "./options.js";
import { RateLimiter } from "./rate-window.js";
import { RequestLog } from "./request-log.js";
import { SessionBook } from "./sessions.js";
import { EmulatorState } from "./state.js";
import { TicketBook } from "./tickets.js";

export interface EmulatorContext {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  /** Records per environment: test (`dev`) and live (`prod`) data never mix, as on the platform. */
  readonly states: Readonly<Record<ApiEnv, EmulatorState>>;
  readonly tickets: TicketBook;
  /** Exam-page sign-ins (cookie sessions). */
  readonly sessions: SessionBook;
  readonly limiter: RateLimiter;
  /** Current limits (`setRateLimits` changes them at run time). */
  readonly limits: RateLimits;
  readonly faults: FaultQueue;
  readonly latency: Latency;
  readonly log: RequestLog;
  /**
   * How far the platform's clock is ahead of this machine's, ms (negative: behind): its
   * `Date` and `X-RateLimit-Reset` headers are on that clock (`setClockSkew`). Default 0.
   */
  clockSkewMs: number;
  /** Successful responses so far; `responseShape: "mixed"` alternates on it. */
  shapeCounter: number;
  /** Pending latency timers, cleared on close so the process can exit. */
  readonly timers: Set<NodeJS.Timeout>;
}

export function createContext(options: ResolvedOptions, logger: Logger): EmulatorContext {
  return {
    options,
    logger,
    states: { dev: new EmulatorState(), prod: new EmulatorState() },
    tickets: new TicketBook(options.tokenTtlMs),
    sessions: new SessionBook(),
    limiter: new RateLimiter(options.rateLimits.windowMs),
    limits: { ...options.rateLimits },
    faults: new FaultQueue(new Set([...options.keys.values()].map((key) => key.org))),
    latency: new Latency(),
    log: new RequestLog(options.requestLogLimit),
    clockSkewMs: 0,
    shapeCounter: 0,
    timers: new Set(),
  };
}

/** Waits `ms` (0 → no timer at all), remembering the timer so `close()` can cancel it. */
export function delay(ctx: EmulatorContext, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ctx.timers.delete(timer);
      resolve();
    }, ms);
    ctx.timers.add(timer);
  });
}

/** An exam of either kind, in whichever environment holds it (ids are unique across both). */
export interface FoundExam {
  kind: "oral" | "roleplay";
  record: Record<string, unknown>;
  state: EmulatorState;
  org: string;
}

export function findExam(ctx: EmulatorContext, id: string): FoundExam | undefined {
  for (const state of [ctx.states.dev, ctx.states.prod]) {
    const oral = state.assessments.get(id);
    if (oral) return { kind: "oral", record: oral.record, state, org: oral.org };
    const roleplay = state.roleplays.get(id);
    if (roleplay) return { kind: "roleplay", record: roleplay.record, state, org: roleplay.org };
  }
  return undefined;
}
