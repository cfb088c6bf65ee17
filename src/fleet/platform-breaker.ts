/**
 * One platform endpoint's calls run through the fleet's circuit breaker: asked before the
 * call (refused: a `CircuitOpenError`, nothing sent), told the call's verdict after it.
 * Which failures are the platform's: see `breakerVerdict`.
 */
import type { Logger } from "../core/logger.js";
import { PlatformError } from "../platform/errors.js";
import type { BreakerAdmission, BreakerVerdict, BreakerView, CircuitBreakerStore } from "./circuit-breaker.js";

/** The breaker refused the call: nothing was sent to the platform. */
export class CircuitOpenError extends Error {
  override readonly name = "CircuitOpenError";
  constructor(
    /** ms until trying again is worth it. */
    readonly retryAfterMs: number,
    /** `half_open`: another caller's probe is running. */
    readonly state: "open" | "half_open",
  ) {
    super(`the platform is failing: the circuit breaker is ${state.replace("_", "-")}, the call was not sent`);
  }
}

/**
 * Whether a failed call shows the platform failing. `failure`: 5xx, timeouts of a sent
 * request, resets and refused connections, answers we cannot read, and 401 (the
 * platform refused our key: every student fails alike). `success`: the platform answered
 * a student's own request with a 4xx (a full class, an unknown class, a refused
 * student): it works. `neutral`: the call proves nothing: aborted by us, never sent (our
 * deadline passed in the rate budget's queue, bad input caught locally), rate limited
 * (the budget's business), or not a platform error at all.
 */
export function breakerVerdict(error: unknown, aborted: boolean): BreakerVerdict {
  if (aborted || !(error instanceof PlatformError)) return "neutral";
  switch (error.kind) {
    case "server": case "network": case "bad_response": case "auth":
      return "failure";
    case "timeout":
      return (error.attempts ?? 1) > 0 ? "failure" : "neutral";
    case "rate_limited": case "invalid_request":
      return "neutral";
    case "http":
      return error.status !== undefined && error.status < 500 ? "success" : "failure";
    default:
      return "success";
  }
}

export interface PlatformBreaker {
  /** Runs `call` when the breaker lets it, and counts its verdict; else rejects with `CircuitOpenError`. */
  run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** The breaker's state now (counts nothing). */
  view(): Promise<BreakerView>;
}

/** `scope`: from `breakerScope`; `endpoint`: a name for the log lines (never the key). */
export function platformBreaker(store: CircuitBreakerStore, scope: string, endpoint: string, logger: Logger): PlatformBreaker {
  return {
    async run(call, signal) {
      // A store that fails (it falls back in process first) must not stop launches.
      const admission: BreakerAdmission = await store.admit(scope).catch((): BreakerAdmission => ({ allowed: true, probe: false }));
      if (!admission.allowed) throw new CircuitOpenError(admission.retryAfterMs, admission.state);
      let verdict: BreakerVerdict = "neutral";
      try {
        const result = await call();
        verdict = "success";
        return result;
      } catch (error) {
        verdict = breakerVerdict(error, signal?.aborted ?? false);
        throw error;
      } finally {
        // Awaited: the next launch on this instance must see the breaker this call opened.
        const change = await store.settle(scope, verdict, admission.probe).catch(() => undefined);
        if (change === "opened") {
          logger.warn({ event: "circuit_opened", endpoint, probe: admission.probe }, "the platform is failing: its circuit breaker opened, calls are refused until a probe succeeds");
        } else if (change === "closed") {
          logger.info({ event: "circuit_closed", endpoint }, "the platform answers again: its circuit breaker closed");
        }
      }
    },
    view: () => store.view(scope),
  };
}
