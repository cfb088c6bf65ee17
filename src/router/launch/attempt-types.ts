/** The shapes `LaunchAttempts` (attempts.ts) works with: a request's handle on an attempt, what a held request learns, the call, the options. */
import type { AttemptOutcome } from "../../fleet/launch-attempts.js";

/** What a launch request is attached to. */
export interface AttemptHandle {
  readonly waitId: string;
  readonly examId: string;
  readonly userKey: string;
}

/** What a held request learns. `lapsed`: the owner died; take the attempt over. */
export type WaitResult = "settled" | "lapsed" | "unknown" | "hold_expired" | "client_gone";

/** The sign-in call of an attempt: resolves with its outcome (a failure is an outcome, never a rejection). */
export type AttemptCall = (signal: AbortSignal) => Promise<AttemptOutcome>;

export interface RunningCall {
  handle: AttemptHandle;
  seq: number;
  createdAt: number;
  lastSeenAt: number;
  settled: boolean;
  held: Set<() => void>;
  controller: AbortController;
}

export interface LaunchAttemptsOptions {
  /** How long a call nobody asks about runs before it is aborted. Must exceed the gap between a waiting page and its refresh. */
  abandonMs: number;
  /** The store's owner lease, ms: renewed every third of it while a call is in flight. */
  leaseMs: number;
  /** How often a request held on another instance's attempt asks the store, ms. Default 100. */
  pollMs?: number;
  /** Told when a call run here issued a token (the per-student launch limit counts it). */
  onIssued?: (handle: AttemptHandle) => void;
}
