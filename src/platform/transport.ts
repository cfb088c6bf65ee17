/**
 * One HTTP attempt, and nothing else: no retries, no budget, no schemas.
 *
 * Why it looks the way it does:
 * - Keep-alive agents with `maxSockets`: a launch page under load reuses a handful of
 *   TLS connections instead of opening one per student.
 * - Every status comes back as a value (our adapter never rejects on a status, so no
 *   `validateStatus` is needed) and we parse the JSON ourselves: a body that is not JSON
 *   becomes a readable result instead of an axios exception.
 * - No `baseURL`: the caller passes a full URL already proven to lie under the API base
 *   (axios would treat a path starting with `//` as another host).
 * - Redirects are never followed (the adapter returns a 3xx as it is): a redirect is not
 *   part of the API and must not carry the key.
 * - Failures are mapped by their `code` alone. The axios error, its `config` (which holds
 *   the Authorization header) and its request object are dropped here; nothing we throw
 *   has a `cause`.
 * - The per-attempt timeout is a wall-clock bound: our adapter reads axios' `timeout` as
 *   one timer over the whole exchange (axios' own adapter makes it an idle-socket timer,
 *   which a slowly dribbling body can outlive). The call's signal (when it has one) goes
 *   to the adapter as it is, so an attempt costs no extra AbortController or timer.
 * - The last step, one request on a keep-alive socket, is our own axios adapter
 *   (`http-adapter.ts`): axios' default one costs more per call. Axios
 *   still does config merging and the request pipeline. The config holds only what a
 *   request needs (the adapter, then method, url, data, headers, timeout and a signal
 *   only when there is one): no transforms (the body is already JSON text and the answer
 *   stays text), no keys the adapter already has. Headers go as a ready AxiosHeaders and
 *   come back as one, so axios normalises neither: each key of a config costs axios time
 *   in its per-request merge.
 */
import http from "node:http";
import https from "node:https";
import { Axios, AxiosHeaders } from "axios";
import { createNodeHttpAdapter } from "./http-adapter.js";
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
  /** The call's own signal (caller abort or deadline), when it has one: `timeoutMs` alone bounds the attempt otherwise. */
  signal?: AbortSignal;
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
  // The key stays in this closure. Axios carries it in each request's config, which is
  // why `toFailure` keeps nothing of an axios error.
  //
  // `new Axios(defaults)` rather than `axios.create()`: create() merges axios' global
  // defaults in (per-method header sets, xsrf names, env), and axios merges those into
  // every request again; with only what we use, that per-request merge is about half as
  // costly.
  const client = new Axios({
    // Agents and the body limit are bound into the adapter, and everything axios would
    // only pass through is left out (see below): each key in the config costs time in
    // axios' per-request merge and flattening.
    adapter: createNodeHttpAdapter({ httpAgent, httpsAgent, maxContentLength: options.maxBodyBytes ?? 10 * 1024 * 1024 }),
  });
  // Each request's headers, whole: given to axios as an AxiosHeaders, they are taken as
  // they are; defaults would be merged into every request with case-insensitive lookups.
  // Built once: axios copies a request's headers into a new AxiosHeaders of its own
  // before it changes anything (and this instance has no interceptors).
  const plain = { Authorization: `Bearer ${options.apiKey}`, Accept: "application/json", "User-Agent": options.userAgent };
  const withoutBody = new AxiosHeaders(plain);
  const withJsonBody = new AxiosHeaders({ ...plain, "Content-Type": "application/json" });

  return {
    async send(request) {
      try {
        const response = await client.request<string>({
          method: request.method,
          url: request.url,
          data: request.body,
          // Both end the attempt inside the adapter: the timeout is wall-clock there. No
          // signal key at all without a signal: each key costs axios time per request.
          ...(request.signal ? { signal: request.signal } : {}),
          timeout: request.timeoutMs,
          headers: request.body !== undefined ? withJsonBody : withoutBody,
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
            resetAt: resetAtOf(numberOf(header("x-ratelimit-reset")), header("date"), Date.now()),
          },
        };
      } catch (error) {
        throw toFailure(error, request.signal?.aborted === true);
      }
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/** Reduces whatever axios threw to a kind and a code. The original is not kept. */
function toFailure(error: unknown, callAborted: boolean): TransportFailure {
  if (callAborted) return new TransportFailure("aborted", "ERR_CANCELED");
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

/**
 * `X-RateLimit-Reset` is Unix seconds on the platform's clock: read against its own `Date`
 * header, as a time from now, then put on ours. A platform clock behind ours would
 * otherwise make every Reset look past (and its Remaining ignored); one ahead, far off.
 * `Date` has whole seconds too, so the reset read lies up to a second late, never early.
 * Without a readable `Date`, the Reset is taken on our clock.
 */
export function resetAtOf(seconds: number | undefined, date: string | undefined, now: number): number | undefined {
  if (seconds === undefined) return undefined;
  const platformNow = date === undefined ? NaN : Date.parse(date);
  return Number.isNaN(platformNow) ? seconds * 1000 : now + (seconds * 1000 - platformNow);
}
