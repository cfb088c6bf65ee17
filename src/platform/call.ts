/**
 * One platform call, end to end: deadline and abort, the rate budget, attempts through
 * the transport, the retry policy, and the error the caller finally sees. Every method
 * of the client (and `request()`) goes through `call`.
 *
 * A call rejects with a `PlatformTimeoutError` when its deadline passes and with the
 * caller's own reason when the caller aborts. An attempt is bounded by its timeout, at most
 * the time left, and listens to the caller's signal. A call that waits (the budget's
 * queue, a backoff sleep) folds the deadline and the caller's signal into one AbortSignal
 * that the wait and the later attempts listen to, so a call never outlives its deadline,
 * wherever it is waiting.
 */
import { silentLogger, type Logger } from "../core/logger.js";
import {
  PlatformInvalidRequestError, platformErrorFor, type PlatformError, type PlatformErrorInit,
} from "./errors.js";
import type { PlatformSettings } from "./options.js";
import { displayPath, resolveUrl } from "./paths.js";
import type { RateBudget } from "./rate-budget.js";
import { errorInitFor, isNotJson, parseJson, successOf, type CallContext } from "./responses.js";
import { decideRetry, type AttemptFailure, type HttpMethod } from "./retry.js";
import type { Meta } from "./schemas.js";
import { TransportFailure, type Transport, type TransportResponse } from "./transport.js";
import type { RequestOptions, RequestPriority } from "./types.js";
import { notifyObservers, type CallObservers } from "./call-observer.js";
import { startCallSpan } from "./call-span.js";
import { endpointTemplate } from "./endpoint-template.js";

export interface CallResult {
  status: number;
  data: unknown;
  meta: Meta | undefined;
  requestId: string | undefined;
}

export type Caller = (method: HttpMethod, path: string, body: unknown, opts: RequestOptions | undefined) => Promise<CallResult>;

/** `observers`: who hears of each request sent (the router's metrics); empty: nobody, and no work is done for them. */
export function createCaller(settings: PlatformSettings, transport: Transport, budget: RateBudget, observers: CallObservers = new Map()): Caller {
  const log: Logger = settings.logger;
  const server = new URL(settings.apiBase);
  const secrets = [settings.apiKey];
  // The default logger drops everything: then a debug line is not worth building.
  const debugOn = log !== silentLogger;
  const pausedUntil = (): number | undefined => (budget.pausedUntilMs ? budget.pausedUntilMs() : budget.stats().pausedUntil);

  return async function call(method, path, body, opts) {
    const ctx: CallContext = { method, path: displayPath(path), secrets };
    const url = resolveUrl(settings.apiBase, path);
    const payload = body === undefined ? undefined : serialize(body, ctx);
    const { priority, deadlineMs } = checkCallOptions(opts, ctx, settings.deadlineMs);
    const waitOut429 = priority === "launch";

    const callSignal = opts?.signal;
    if (callSignal?.aborted) throw callSignal.reason;
    const startedAt = Date.now();
    const deadlineAt = startedAt + deadlineMs;
    let attempts = 0;
    const span = startCallSpan(method, path, server);
    /** Worked out once, and only when someone observes the requests. */
    let endpoint: string | undefined;
    const observed = (status: number | undefined, failure?: string): void => {
      span?.answered(status, failure);
      if (observers.size > 0) notifyObservers(observers, { method, endpoint: (endpoint ??= endpointTemplate(method, path)), status, failure });
    };
    /** The deadline's error (made once): what the call rejects with when the deadline passes. */
    let deadlineError: PlatformError | undefined;
    const deadlinePassed = (): PlatformError => (deadlineError ??= platformErrorFor({
      kind: "timeout",
      message: `${method} ${ctx.path}: no answer within the ${deadlineMs} ms deadline (${attempts} attempt${attempts === 1 ? "" : "s"} started).`,
      attempts, method, path: ctx.path,
    }));
    // The deadline and the caller's abort as one signal, made only when the call waits (the
    // budget's queue, a backoff sleep). A call the budget admits at once needs none: its
    // attempt's own timeout (at most the time left) bounds it, and the caller's signal,
    // if any, goes to the attempt as it is.
    let controller: AbortController | undefined;
    let deadline: NodeJS.Timeout | undefined;
    const onCallerAbort = () => controller?.abort(callSignal?.reason);
    const signal = (): AbortSignal => {
      if (controller) return controller.signal;
      const made = (controller = new AbortController());
      deadline = setTimeout(() => made.abort(deadlinePassed()), Math.max(0, deadlineAt - Date.now()));
      callSignal?.addEventListener("abort", onCallerAbort, { once: true });
      return made.signal;
    };

    try {
      for (;;) {
        // After a 429 the budget holds every call until Retry-After. A call that cannot wait
        // that long (cap or deadline; a launch: its deadline only, see retry.ts) fails now,
        // as the 429 itself would have, unsent.
        const pausedMs = (pausedUntil() ?? 0) - Date.now();
        if (pausedMs > 0 && ((!waitOut429 && pausedMs > settings.maxRetryAfterMs) || pausedMs >= deadlineAt - Date.now())) {
          throw giveUp({
            kind: "rate_limited", retryAfter: Math.ceil(pausedMs / 1000), method, path: ctx.path,
            message: `${method} ${ctx.path}: not sent, the key is rate limited for another ${Math.ceil(pausedMs / 1000)} s (the platform answered 429).`,
          }, attempts, ctx);
        }
        const release = budget.tryAcquire?.(priority) ?? (await budget.acquire(priority, signal()));
        attempts += 1;
        let response: TransportResponse | undefined;
        let failure: TransportFailure | undefined;
        const msLeft = deadlineAt - Date.now();
        try {
          if (msLeft <= 0) throw deadlinePassed();
          const request = { method, url, body: payload, timeoutMs: Math.min(settings.timeoutMs, msLeft), signal: controller?.signal ?? callSignal };
          response = await (span ? span.attempt(() => transport.send(request)) : transport.send(request));
          observed(response.status);
          // Before release, so the budget counts this request as in flight while it reads the
          // headers, and a 429 holds the queue before release() lets the next call go.
          budget.observe(response.rateLimit, release);
          if (response.status === 429) pauseFor429(response);
        } catch (error) {
          if (!(error instanceof TransportFailure)) throw error;
          observed(undefined, error.kind);
          // The call's own signal when it made one (the deadline or the caller), else the caller's.
          if (error.kind === "aborted") throw (controller?.signal ?? callSignal)?.reason;
          // The attempt's timeout was the time left: that is the call's deadline passing.
          if (error.kind === "timeout" && msLeft <= settings.timeoutMs && Date.now() >= deadlineAt - 1) throw deadlinePassed();
          failure = error;
        } finally {
          release();
        }

        if (response && response.status >= 200 && response.status < 300) {
          const parsed = parseJson(response.text);
          if (isNotJson(parsed)) {
            throw giveUp({
              kind: "bad_response", status: response.status, requestId: response.requestId,
              message: `${method} ${ctx.path} → ${response.status}: the platform's answer is not valid JSON.`,
              method, path: ctx.path,
            }, attempts, ctx);
          }
          const { data, meta } = successOf(parsed, response.requestId);
          if (debugOn) log.debug({ method, path: ctx.path, status: response.status, attempts, ms: Date.now() - startedAt }, "platform call succeeded");
          span?.end();
          return { status: response.status, data, meta, requestId: meta?.requestId };
        }

        const init = response ? errorInitFor(response, ctx) : failureInit(failure as TransportFailure, ctx, settings.timeoutMs);
        const attemptFailure: AttemptFailure = response
          ? { type: "status", status: response.status, retryAfterMs: response.retryAfterMs }
          : attemptFailureOf(failure as TransportFailure);
        const decision = decideRetry({ policy: settings, method, attempt: attempts, failure: attemptFailure, msLeft: deadlineAt - Date.now(), waitOut429 });
        if (!decision.retry) {
          if (decision.reason === "retry_after_too_long") {
            init.message += ` The platform asked to wait ${init.retryAfter} s, longer than maxRetryAfterMs (${settings.maxRetryAfterMs} ms).`;
          }
          throw giveUp(init, attempts, ctx);
        }
        log.debug({
          method, path: ctx.path, status: init.status, kind: init.kind, code: init.code, attempt: attempts,
          delayMs: decision.delayMs, requestId: init.requestId,
        }, "platform call failed; retrying");
        await sleep(decision.delayMs, signal());
      }
    } catch (error) {
      span?.end(error);
      // The deadline may pass in the queue, in a sleep or in an attempt; log it like any failure.
      if (error !== undefined && error === deadlineError) {
        log.warn({ method, path: ctx.path, kind: "timeout", attempts }, "platform call gave up: deadline");
      }
      throw error;
    } finally {
      if (deadline) clearTimeout(deadline);
      callSignal?.removeEventListener("abort", onCallerAbort);
    }
  };

  /** Holds every call, not only this one: the key is over its limit for all of them. */
  function pauseFor429(response: TransportResponse): void {
    const until = response.retryAfterMs !== undefined ? Date.now() + response.retryAfterMs : response.rateLimit.resetAt;
    if (until !== undefined) budget.pause(until);
  }

  function giveUp(init: PlatformErrorInit, attempts: number, ctx: CallContext): PlatformError {
    const error = platformErrorFor({ ...init, attempts });
    const level = error.isTransient || error.kind === "bad_response" || error.kind === "auth" ? "warn" : "debug";
    log[level]({
      method: ctx.method, path: ctx.path, status: error.status, kind: error.kind, code: error.code,
      attempts, requestId: error.requestId, retryAfter: error.retryAfter,
    }, "platform call failed");
    return error;
  }
}

function attemptFailureOf(failure: TransportFailure): AttemptFailure {
  // "aborted" never gets here: the call rethrows its signal's reason first.
  return { type: failure.kind === "too_large" || failure.kind === "aborted" ? "bad_response" : failure.kind };
}

function failureInit(failure: TransportFailure, ctx: CallContext, timeoutMs: number): PlatformErrorInit {
  const base = { method: ctx.method, path: ctx.path };
  switch (failure.kind) {
    case "timeout":
      return { ...base, kind: "timeout", message: `${ctx.method} ${ctx.path}: no answer within ${timeoutMs} ms.` };
    case "too_large":
      return { ...base, kind: "bad_response", message: `${ctx.method} ${ctx.path}: the platform's answer is too large.` };
    case "reset":
      return { ...base, kind: "network", message: `${ctx.method} ${ctx.path}: the connection was reset (${failure.code}).` };
    default:
      return { ...base, kind: "network", message: `${ctx.method} ${ctx.path}: could not reach the platform (${failure.code}).` };
  }
}

function serialize(body: unknown, ctx: CallContext): string {
  try {
    const text = JSON.stringify(body);
    if (text !== undefined) return text;
  } catch {
    // circular structures and BigInt land here
  }
  throw new PlatformInvalidRequestError(`${ctx.method} ${ctx.path}: the body cannot be sent as JSON. Nothing was sent.`,
    [{ path: "(body)", message: "must be JSON-serialisable" }]);
}

function checkCallOptions(opts: RequestOptions | undefined, ctx: CallContext, defaultDeadlineMs: number): { priority: RequestPriority; deadlineMs: number } {
  const issues: { path: string; message: string }[] = [];
  const priority = opts?.priority ?? "normal";
  if (priority !== "launch" && priority !== "normal") issues.push({ path: "priority", message: 'must be "launch" or "normal"' });
  const deadlineMs = opts?.deadlineMs;
  if (deadlineMs !== undefined && !(typeof deadlineMs === "number" && Number.isFinite(deadlineMs) && deadlineMs > 0)) {
    issues.push({ path: "deadlineMs", message: "must be a positive number of ms" });
  }
  if (opts?.signal !== undefined && !(opts.signal instanceof AbortSignal)) issues.push({ path: "signal", message: "must be an AbortSignal" });
  if (issues.length > 0) {
    throw new PlatformInvalidRequestError(`${ctx.method} ${ctx.path}: invalid request options: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}.`, issues);
  }
  return { priority, deadlineMs: deadlineMs ?? defaultDeadlineMs };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
