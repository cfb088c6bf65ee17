/**
 * The emulator's public shape: a stateful, local stand-in for the platform, for
 * development, demos and tests. `server.ts` implements it.
 */
import type { Logger } from "../core/logger.js";

export interface EmulatorOptions {
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string;
  /** Accepted test (dev) keys (`svc_test_…` or `ct_test_…`). Default: one random `svc_test_…` key, exposed as `testKey`. */
  testKeys?: string[];
  /** Accepted live (prod) keys (`svc_live_…` or `ct_live_…`). Default: one random `svc_live_…` key, exposed as `liveKey`. */
  liveKeys?: string[];
  /** Requests per minute per key, sliding window. Default dev 60, prod 600 (the vendor's). */
  rateLimits?: { dev?: number; prod?: number; windowMs?: number };
  /** Students one class can hold before sign-in answers 409 `conflict`. Default 1000. */
  classCapacity?: number;
  /** Query parameter the exam page reads the ticket from. Default `__clerk_ticket`. */
  ticketParam?: string;
  /** Sign-in token lifetime, ms. Default 600 000 (10 minutes, as the vendor documents). */
  tokenTtlMs?: number;
  /** Response shape: the vendor's `{ data, meta }` envelope, bare records, or alternating. Default `envelope`. */
  responseShape?: "envelope" | "bare" | "mixed";
  /** Logger for requests and faults. Default: silent. Lines never hold a key, a token or a body. */
  logger?: Partial<Logger>;
  /**
   * Keys of a second organization, `other` (env from the prefix: `svc_live_`/`ct_live_` → prod,
   * else dev), without an exam host of its own. Records of one organization answer 403
   * `forbidden` to the other's keys. Default none. (`organizations` is the fuller way.)
   */
  otherOrgKeys?: string[];
  /** Largest request body accepted, bytes; larger → 413. Default 1 048 576 (1 MiB). */
  maxBodyBytes?: number;
  /** How many requests `requests` keeps (oldest dropped first), so long benchmarks stay bounded. Default 10 000. */
  requestLogLimit?: number;
  /**
   * Answer `/__emulator/*` control requests from non-loopback addresses too. They have no
   * auth, so by default only 127.0.0.0/8 and ::1 may use them (403 otherwise). Default false.
   */
  controlFromAnyAddress?: boolean;
  /**
   * The organizations (schools) the emulator stands in for, each with its own keys, records,
   * rate windows and exam host (an origin of its own: one more listening port). Cannot be
   * combined with `testKeys`, `liveKeys` or `otherOrgKeys` (give keys per organization).
   * Default: one organization, `default`, whose keys are `testKeys`/`liveKeys` and whose exam
   * pages are on the main origin.
   */
  organizations?: EmulatorOrganizationOptions[];
}

/** One organization of `EmulatorOptions.organizations`. */
export interface EmulatorOrganizationOptions {
  /** 1–64 letters, digits, `_`, `.` or `-`; unique. Records and logged requests carry it as `org`. */
  id: string;
  /** Its name, shown on its exam host's pages, e.g. `North High`. Non-empty. */
  name: string;
  /** Its accepted test (dev) keys (`svc_test_…`/`ct_test_…`). Default: one random `svc_test_…` key. */
  testKeys?: string[];
  /** Its accepted live (prod) keys (`svc_live_…`/`ct_live_…`). Default: one random `svc_live_…` key. */
  liveKeys?: string[];
  /** Port of its exam host, on the emulator's `host`; 0 picks a free one. Default 0. */
  examPort?: number;
}

/** A fault that applies to the next matching requests. */
export interface FaultSpec {
  /** What happens: answer with `status`, never answer, destroy the socket, or send broken JSON. */
  type: "status" | "hang" | "reset" | "malformed";
  /** With `type: "status"`: the status to answer (e.g. 500, 503, 429). */
  status?: number;
  /** With status 429/503: the `Retry-After` seconds to send. */
  retryAfter?: number;
  /** How many matching requests it applies to. Default 1. */
  count?: number;
  /** Only requests made with this organization's keys (its `id`), e.g. a platform failing for one school. Default any. */
  organization?: string;
  /** Only requests whose method matches (e.g. `POST`). Default any. */
  method?: string;
  /** Only requests whose path (after `/api/v1/<env>`) starts with this. Default any. */
  pathPrefix?: string;
  /**
   * Only requests whose raw body contains this text, e.g. one student's e-mail on
   * `/students/sign-in-token` (a platform failing for that student alone). Default any.
   */
  bodyContains?: string;
}

/** One API request the emulator received, for assertions (never the key: only its env). */
export interface ReceivedRequest {
  method: string;
  /** Path after `/api/v1/<env>`, e.g. `/courses/abc`. */
  path: string;
  env: string;
  /** Id of the organization whose key made it; absent when the key was refused (401). */
  org?: string;
  /** Status answered; 0 while in flight and for `hang`/`reset` faults (no answer was sent). */
  status: number;
  /** ms since epoch when it arrived. */
  at: number;
  body: unknown;
}

/**
 * Records of both environments, test (`dev`) first; each record carries its `env` and its
 * organization's id as `org` (a student: its class's). Tickets name their class.
 */
export interface EmulatorStateSnapshot {
  courses: Record<string, unknown>[];
  classes: Record<string, unknown>[];
  assessments: Record<string, unknown>[];
  roleplays: Record<string, unknown>[];
  students: Record<string, unknown>[];
  /** Issued sign-in tokens: jti, student, class, expiry, used. Never the token itself. */
  tickets: { jti: string; studentId: string; classId: string; expiresAt: number; used: boolean }[];
}

/**
 * An organization the emulator stands in for. Printing it (inspect, JSON) shows its keys
 * redacted; the getters give them in full.
 */
export interface EmulatorOrganization {
  readonly id: string;
  readonly name: string;
  /** A key of this organization accepted on `/api/v1/dev`. */
  readonly testKey: string;
  /** A key of this organization accepted on `/api/v1/prod`. */
  readonly liveKey: string;
  /**
   * Origin of its exam pages (its custom domain), e.g. `http://127.0.0.1:43124`: opens only
   * this organization's exams. The default organization's is the emulator's own `url`.
   */
  readonly examHost: string;
}

export interface Emulator {
  /** Origin, e.g. `http://127.0.0.1:43123`: the client's `baseUrl`. */
  readonly url: string;
  /** The first organization's exam host (without `organizations`: this same origin). */
  readonly examHost: string;
  /** A key accepted on `/api/v1/dev`: the first organization's. */
  readonly testKey: string;
  /** A key accepted on `/api/v1/prod`: the first organization's. */
  readonly liveKey: string;
  /** Every organization, in the order given (without `organizations`: the one `default`). */
  readonly organizations: readonly EmulatorOrganization[];
  /** The organization with this id; throws a `RangeError` naming the known ids when there is none. */
  organization(id: string): EmulatorOrganization;
  readonly ticketParam: string;

  /** Every API request received since start or the last `reset()`. */
  readonly requests: readonly ReceivedRequest[];
  state(): EmulatorStateSnapshot;
  /** Clears records, tickets, rate windows, faults, latency and the request log. */
  reset(): void;

  /** Adds a fault for upcoming requests. */
  fault(spec: FaultSpec): void;
  /** Latency added to every API request: fixed plus uniform random jitter, ms. */
  setLatency(latency: { fixedMs?: number; jitterMs?: number }): void;
  /** Removes all faults and latency. */
  clearFaults(): void;
  /** Changes rate limits at run time (e.g. a benchmark). */
  setRateLimits(limits: { dev?: number; prod?: number; windowMs?: number }): void;
  /**
   * Puts the platform's clock `skewMs` ahead of this machine's (negative: behind): its
   * `Date` and `X-RateLimit-Reset` headers follow it, as a platform with a wrong clock
   * would send them. Set it before traffic (rate windows are kept on that clock). `reset()`
   * puts it back to 0.
   */
  setClockSkew(skewMs: number): void;

  /**
   * The exam page address for an oral assessment (`/exam/:id`) or a role-play
   * (`/exam/:id/roleplay`) on its organization's exam host, with the ticket query
   * parameter when a token is given.
   */
  examUrl(examId: string, token?: string): string;

  /** Stops listening (exam hosts too) and ends every connection, hung ones included. Idempotent. */
  close(): Promise<void>;
}
