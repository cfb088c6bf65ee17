/**
 * One HTTP attempt, and nothing else: no retries, no budget, no schemas.
 *
 * Why it looks the way it does:
 * - Keep-alive agents with `maxSockets`: a launch page under load reuses a handful of
 *   TLS connections instead of opening one per student.
 * - `validateStatus: () => true` and our own JSON parsing: every status comes back as a
 *   value, and a body that is not JSON becomes a readable result instead of an axios
 *   exception.
 * - No `baseURL`: the caller passes a full URL already proven to lie under the API base
 *   (axios would treat a path starting with `//` as another host).
 * - `maxRedirects: 0`: a redirect is not part of the API and must not carry the key.
 * - Failures are mapped by their `code` alone. The axios error, its `config` (which holds
 *   the Authorization header) and its request object are dropped here; nothing we throw
 *   has a `cause`.
 * - The per-attempt timeout is our own timer on an AbortController, a wall-clock bound
 *   (axios' `timeout` is an idle-socket timer that a slowly dribbling body can outlive).
 */
import http from "node:http";
import https from "node:https";
import axios, { type AxiosInstance } from "axios";
import { parseRetryAfter, type HttpMethod } from "./retry.js";
import type { RateLimitObservation } from "./rate-budget.js";

export interface TransportRequest {
  method: HttpMethod;
  /** Full URL, already checked by `resolveUrl`. */
  url: string;
  /** JSON text, already serialised. */
  body?: string;
  /** Bound on this attempt, ms. */
  timeoutMs: number;
  /** The call's own signal (caller abort or deadline). */
  signal: AbortSignal;
}

/** What came back: the status, the raw body text and the few headers we read. */
export interface TransportResponse {
  status: number;
  text: string;
  requestId: string | undefined;
  retryAfterMs: number | undefined;
  rateLimit: RateLimitObservation;
}

/**
 * Why an attempt produced no response. `aborted` means the call's signal fired (deadline
 * or caller); the caller decides what that becomes.
 */
export type TransportFailureKind = "timeout" | "reset" | "network" | "too_large" | "aborted";

export class TransportFailure extends Error {
  override readonly name = "TransportFailure";
  constructor(readonly kind: TransportFailureKind, readonly code: string) {
    super(`${kind} (${code})`);
  }
}

export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  close(): void;
}

export interface TransportOptions {
  apiKey: string;
  maxSockets: number;
  userAgent: string;
  /** Largest response body accepted, bytes. */
  maxBodyBytes?: number;
}

const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "ERR_SOCKET_CLOSED"]);
const TIMEOUT_CODES = new Set(["ECONNABORTED", "ETIMEDOUT", "ESOCKETTIMEDOUT"]);

export function createTransport(options: TransportOptions): Transport {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  const client: AxiosInstance = axios.create({
    httpAgent,
    httpsAgent,
    maxRedirects: 0,
    validateStatus: () => true,
    responseType: "text",
    transformResponse: [(data: unknown) => data],
    maxContentLength: options.maxBodyBytes ?? 10 * 1024 * 1024,
    decompress: true,
  });
  // The key stays in this closure. Axios copies it into each request's config, which is
  // why `toFailure` keeps nothing of an axios error.
  const authorization = `Bearer ${options.apiKey}`;

  return {
    async send(request) {
      const attempt = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attempt.abort();
      }, request.timeoutMs);
      const onCallAbort = () => attempt.abort();
      request.signal.addEventListener("abort", onCallAbort, { once: true });
      if (request.signal.aborted) attempt.abort();
      try {
        const response = await client.request<string>({
          method: request.method,
          url: request.url,
          data: request.body,
          signal: attempt.signal,
          headers: {
            Authorization: authorization,
            Accept: "application/json",
            "User-Agent": options.userAgent,
            ...(request.body !== undefined ? { "Content-Type": "application/json" } : {}),
          },
        });
        const header = (name: string): string | undefined => {
          const value: unknown = response.headers[name];
          return typeof value === "string" ? value : Array.isArray(value) ? String(value[0]) : undefined;
        };
        return {
          status: response.status,
          text: typeof response.data === "string" ? response.data : "",
          requestId: header("x-request-id"),
          retryAfterMs: parseRetryAfter(header("retry-after")),
          rateLimit: {
            limit: numberOf(header("x-ratelimit-limit")),
            remaining: numberOf(header("x-ratelimit-remaining")),
            resetAt: secondsToMs(numberOf(header("x-ratelimit-reset"))),
          },
        };
      } catch (error) {
        throw toFailure(error, timedOut, request.signal.aborted);
      } finally {
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onCallAbort);
      }
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/** Reduces whatever axios threw to a kind and a code. The original is not kept. */
function toFailure(error: unknown, timedOut: boolean, callAborted: boolean): TransportFailure {
  if (callAborted) return new TransportFailure("aborted", "ERR_CANCELED");
  if (timedOut) return new TransportFailure("timeout", "ETIMEDOUT");
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : "";
  if (TIMEOUT_CODES.has(code)) return new TransportFailure("timeout", code);
  if (RESET_CODES.has(code) || /socket hang up/i.test(message)) return new TransportFailure("reset", code || "ECONNRESET");
  if (/maxContentLength/i.test(message)) return new TransportFailure("too_large", code || "ERR_BAD_RESPONSE");
  return new TransportFailure("network", code || "ERR_NETWORK");
}

function errorCode(error: unknown): string {
  const direct = (error as { code?: unknown } | null)?.code;
  if (typeof direct === "string" && direct !== "ERR_NETWORK" && direct !== "ERR_BAD_RESPONSE") return direct;
  // axios sometimes wraps the system error; its code is the informative one.
  const inner = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof inner === "string") return inner;
  return typeof direct === "string" ? direct : "";
}

function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** `X-RateLimit-Reset` is Unix seconds; we work in ms. */
function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000;
}
