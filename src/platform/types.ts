/**
 * The client's public shape. `client.ts` implements it; the router and tests depend on
 * this file only.
 */
import type { Logger } from "../core/logger.js";
import type { RateBudget, RateBudgetStats } from "./rate-budget-interface.js";
import type { ListFilter, StudentIdentity } from "./schemas.js";
import type { PlatformResources } from "./endpoint-types.js";
import type { RequestOptions, WithMeta } from "./request-options.js";

// One call's options and answer, in their own file so the endpoint table's types need not import this one.
export type { RequestOptions, RequestPriority, WithMeta } from "./request-options.js";

export type PlatformEnv = "prod" | "dev";

export interface PlatformClientOptions {
  /**
   * The organization's API key. Required. `svc_live_…`/`ct_live_…` → prod,
   * `svc_test_…`/`ct_test_…` → dev; a key of neither family needs `env`.
   */
  apiKey: string;
  /** The platform's base address, e.g. `https://platform.example.com`. Required. */
  baseUrl: string;
  /** Environment path. Default: derived from the key prefix; must agree with it when given (required for a key of neither family). */
  env?: PlatformEnv;
  /** Timeout of one attempt, in ms. Default 10 000. */
  timeoutMs?: number;
  /** Retries after the first attempt (429 for any method; 5xx/timeouts/resets for GET, PUT, DELETE). Default 2. */
  maxRetries?: number;
  /** Bound on a whole call including retries and waits, in ms. Default `timeoutMs × (maxRetries + 1) + 5 000`. */
  deadlineMs?: number;
  /** Longest `Retry-After` we honour before giving up, in ms. Default 30 000. */
  maxRetryAfterMs?: number;
  /** Most requests in flight at once; more wait in a queue. Default 16. */
  maxConcurrency?: number;
  /** Requests per minute the key may make. Default by env: dev 60, prod 600. */
  rateLimitPerMinute?: number;
  /**
   * Length of the rate-limit window, in ms. Default 60 000 (the vendor's "per minute").
   * Shorter windows exist for tests and benchmarks against the emulator.
   */
  rateWindowMs?: number;
  /**
   * Share of the window kept for normal-priority calls (instructor calls) while launches
   * wait: a waiting normal call goes before waiting launches as long as fewer than
   * ⌈normalShare × rateLimitPerMinute⌉ normal calls were sent in the last window, so a
   * launch storm delays it by one freed slot at most. From 0 (launches always first) to 1.
   * Default 0.1. (A `rateBudget` given here has its own setting, e.g. `redisFleet`'s.)
   */
  normalShare?: number;
  /**
   * The scheduler every call passes through. Default: an in-process budget built from
   * `rateLimitPerMinute`, `rateWindowMs` and `maxConcurrency`. Replace it with a shared
   * implementation when several app instances use one key.
   */
  rateBudget?: RateBudget;
  /** First retry delay before jitter, in ms; doubles per attempt. Default 250. */
  retryBaseDelayMs?: number;
  /** Largest backoff delay before jitter, in ms. Default 5 000. */
  retryMaxDelayMs?: number;
  /**
   * Allow `http://` to a host other than localhost. Default false: the key would travel in
   * clear text. Meant for a container network (e.g. the emulator at `http://emulator:4010`).
   */
  allowInsecureHttp?: boolean;
  /** pino-compatible logger. Default: silent. */
  logger?: Partial<Logger>;
}

/**
 * The client: one method per entry of the endpoint table (`PlatformResources`, derived
 * from `endpoints.ts`: a new endpoint there is a new typed method here, with nothing to
 * write by hand), plus what is not an endpoint of its own.
 */
export interface PlatformClient extends Omit<PlatformResources, "students"> {
  readonly env: PlatformEnv;
  /** The platform's origin (scheme://host:port), where its own exam pages live. */
  readonly platformOrigin: string;
  /** The key, redacted (`svc_live_…abcd`): safe to show. */
  readonly redactedKey: string;
  /**
   * A stable name for the key (the first 32 hex digits of its SHA-256, as `keyHash`), for
   * state kept per key such as the circuit breakers; a fleet names it in Redis only
   * through an HMAC under its secret. Never the key.
   */
  readonly keyId: string;

  students: PlatformResources["students"] & {
    /**
     * The token alone, for a student the caller already parsed with the `StudentIdentity`
     * schema and a class (and course) id from its store. Unlike `createSignInToken` it does
     * not validate the request again: on the launch path of an exam-day storm that second
     * check was a measurable share of a launch's cost. The answer is read as strictly
     * (`SignInToken`); priority defaults to `launch`.
     */
    issueSignInToken(student: StudentIdentity, target: { classId: string; courseId?: string | undefined }, opts?: RequestOptions): Promise<string>;
  };
  /**
   * Any other platform endpoint (video tickets, upload presign…), through the same auth, retry,
   * rate budget and error machinery. `path` is relative to `/api/v1/<env>` and must start
   * with `/`; build it with `pathOf` so ids are percent-encoded.
   */
  request<T = unknown>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown, opts?: RequestOptions): Promise<WithMeta<T>>;
  /** What the rate budget is doing now (queued calls per priority, requests in the window…). */
  rateStats(): RateBudgetStats;
  /** The rate budget's `estimateWaitMs`: how long a launch queued behind `ahead` calls waits, ms. */
  estimateWaitMs(ahead: number): number;
  /** The rate budget's `pacingIntervalMs`: spacing between calls using `share` of the rate, ms. */
  pacingIntervalMs(share: number): number;
  /** Closes keep-alive sockets. */
  close(): void;
}

/** The methods both exam kinds have (oral assessments and role-plays). */
export interface ExamResource<Record, CreateInput, UpdateInput> {
  create(body: CreateInput, opts?: RequestOptions): Promise<WithMeta<Record>>;
  /** All of the organization's exams of this kind, or one class's (`{ classId }`). */
  list(filter?: ListFilter, opts?: RequestOptions): Promise<WithMeta<Record[]>>;
  retrieve(id: string, opts?: RequestOptions): Promise<WithMeta<Record>>;
  /** Partial: only the fields given are sent (at least one). */
  update(id: string, body: UpdateInput, opts?: RequestOptions): Promise<WithMeta<Record>>;
  del(id: string, opts?: RequestOptions): Promise<WithMeta<undefined>>;
}
