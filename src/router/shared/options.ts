/**
 * The router's public options, each with its default. Resolution into settings (and the
 * one ConfigurationError listing every mistake) is in `../settings.ts`; each feature then
 * receives only the settings it uses. Here, in `shared/`, because every feature folder
 * reads its part of these types, and feature folders import only downwards (never the
 * router's root, which imports them).
 */
import type { Request } from "express";
import type { Logger } from "../../core/logger.js";
import type { StudentIdentity } from "../../platform/schemas.js";
import type { PlatformClient, PlatformClientOptions } from "../../platform/types.js";
import type { MaybePromise, OrganizationResolver } from "./organization-info.js";
export type { MaybePromise } from "./organization-info.js";
import type { OralStore } from "../../store/types.js";
import type { RenderPage } from "./router-page.js";
import type { Fleet } from "../../fleet/fleet.js";
import type { CircuitBreakerOptions } from "../../fleet/breaker-options.js";
import type { LaunchLimitOptions } from "../../fleet/launch-limit-options.js";
import type { LtiOptions } from "../../lti/options/options.js";
import type { MetricsOptions } from "./metrics-options.js";
import type { LaunchExportOptions } from "./export-options.js";

/** The student a launch signs in: the platform schema's type (`schemas.StudentIdentity`). */
export type { StudentIdentity } from "../../platform/schemas.js";
export type { RenderPage, RouterPage, RouterPageKind, RouterPageLink } from "./router-page.js";

export interface LaunchContext {
  examId: string;
  classId: string;
  courseId: string | undefined;
  student: StudentIdentity;
  /** `"lti"`: the launch came from an LMS (an LTI exam link); unset for the router's own launch link. */
  via?: "lti";
  /**
   * With `via: "lti"`: the LMS launch's verified claims that are kept with the exam link
   * (`sub`, `iss`, `aud`, deployment, context, resource link, roles, `lis`; docs/lti.md).
   */
  claims?: Record<string, unknown>;
}

export interface OralAssessmentsOptions {
  /**
   * Makes the router an LTI 1.3 tool too, so an LMS (Canvas, Moodle, Blackboard,
   * Brightspace, Schoology, Sakai) opens exams directly: `/lti/jwks.json`, `/lti/login`,
   * `/lti/launch` under the mount. See docs/lti.md. Default: unset, no LTI routes.
   */
  lti?: LtiOptions;
  /**
   * The platform client (`createPlatformClient`) of the one organization this router acts
   * for. Required, unless `organization` is given (the two are exclusive).
   */
  platform?: PlatformClient;
  /**
   * The organization's custom exam domain, an origin such as `https://exams.example.edu`
   * (https; http only for localhost). The only host the router ever redirects to. With
   * `organization`, each organization's `examHost` is used instead.
   * Default: unset → students go to the platform's own host, and no sign-in token is needed.
   */
  examHost?: string;
  /**
   * Many organizations in one app: which organization a request acts for, asked once per
   * request (memoised on it). Answer `{ id, apiKey, baseUrl, examHost? }`, or undefined
   * when the request has none (its routes answer 404, nothing is sent upstream); a
   * resolver that throws is a 503, logged once without the key. The router builds a client
   * per (organization, key) and scopes every record, idempotency key, launch attempt,
   * prepared token, plan and cache by the organization's id. Exclusive with `platform`
   * and `examHost`. Default: none (the single `platform`).
   */
  organization?: OrganizationResolver;
  /**
   * With `organization`: how many organizations' clients (and what the router keeps for
   * them) stay at once, and how long an unused one stays, ms. An organization with a
   * running pre-warm plan stays while it runs. Default `{ max: 1000, idleMs: 900 000 }`.
   */
  organizationCache?: { max?: number; idleMs?: number };
  /**
   * With `organization`: options of the clients the router builds (timeouts, retries,
   * `logger`, rate limit, …; `apiKey`, `baseUrl` and `env` come from the resolver).
   * Default: `createPlatformClient`'s defaults.
   */
  organizationClient?: Omit<PlatformClientOptions, "apiKey" | "baseUrl" | "env" | "rateBudget">;
  /** Who may use the instructor API. Default: nobody (deny by default). */
  isInstructor?: (req: Request) => MaybePromise<boolean>;
  /**
   * Maps the logged-in user to the student the platform signs in. Default: `email`,
   * `firstName`, `lastName`, `orgInternalId` read from `req.user`, `orgInternalId`
   * falling back to `req.user.id`.
   */
  student?: (req: Request) => MaybePromise<Partial<StudentIdentity> | undefined>;
  /**
   * Whether this user may launch this exam: a roster check (`false` → the 403 page). Required,
   * with no default: without it every signed-in user could launch every known exam and be
   * enrolled in its class on the platform. `"any-signed-in-user"` accepts exactly that, on purpose.
   */
  canLaunch: ((req: Request, ctx: LaunchContext) => MaybePromise<boolean>) | "any-signed-in-user";
  /**
   * Finds the class of an exam the store does not know (integrators who keep their own
   * mapping). `organization`: the request's organization (`"default"` with `platform`):
   * answer only for exams of that organization. Default: none — only exams created
   * through this router can be launched.
   */
  resolveClassId?: (examId: string, req: Request, organization: string) => MaybePromise<string | { classId: string; courseId?: string } | undefined>;
  /** Where created records live. Default: `sqliteStore()`, a file `oral-assessments.sqlite` in the working directory. */
  store?: OralStore;
  /** Query parameter that carries the sign-in token to the exam page. Default `"__clerk_ticket"`. */
  ticketParam?: string;
  /**
   * Where a signed-out student is sent, with `?returnTo=<relative launch path>`: a path
   * on this site (`/login`) or an absolute http(s) URL. Default: unset → a 401 page.
   */
  loginUrl?: string;
  /**
   * The way back every router HTML page (401, 403, 404, 409, 429, 5xx, waiting) links to,
   * as its last link: a path on this site or an absolute http(s) URL. Default `"/"`.
   */
  homeUrl?: string;
  /**
   * Renders the router's HTML pages inside your own layout: `page` holds the status,
   * `kind`, plain-text title and message, and links (the way back last). The router sets
   * the status and its safety headers first (no-store, `Referrer-Policy: same-origin`, nosniff,
   * `Retry-After`, `Refresh` for the waiting page) but not its Content-Security-Policy:
   * your layout sends its own. If it throws, rejects or does not answer within 5 s, the
   * built-in page is sent and the failure logged. Default: the built-in pages (a small
   * standalone document with a strict CSP).
   */
  renderPage?: RenderPage;
  /** Largest JSON body accepted, in bytes or a size string. Default `"100kb"`. */
  bodyLimit?: number | string;
  /**
   * Origins, besides this site's own, allowed to call state-changing instructor routes
   * from a browser (cookie-session CSRF defence). Default: none.
   */
  trustedOrigins?: string[];
  /**
   * This site's public origin, e.g. `https://lms.example.edu` (https; http only for
   * localhost): what browsers send as `Origin` on the instructor API's writes. Set it when
   * a proxy in front of the app terminates TLS or rewrites Host and the app does not set
   * Express's `trust proxy`. Default: unset → worked out per request from `req.protocol`
   * and Host (`X-Forwarded-Proto` / `X-Forwarded-Host` when `trust proxy` trusts the peer).
   */
  publicOrigin?: string;
  /** How long platform lists (`GET /courses`, a course's classes, a class's assessments and role-plays) are cached, ms (the vendor advises caching lists); writes through the router refresh them at once. 0 disables. Default 5 000. */
  listCacheMs?: number;
  /** pino-compatible logger for errors and launch outcomes. Default: silent. */
  logger?: Partial<Logger>;
  /**
   * Longest a student waits for an on-demand sign-in token, rate-budget queue included,
   * before a retry page. Default 120 000 (2 minutes: a 600-student storm at prod's
   * 600/min clears in about one).
   */
  launchWaitMs?: number;
  /**
   * How long a launch (or a waiting page's refresh) is held open for its token before
   * the "Preparing your exam" page answers instead. A launch whose estimated wait is
   * longer gets that page at once. Default 2 000.
   */
  waitingPageAfterMs?: number;
  /**
   * A student's fair share of sign-in calls per exam: `burst` at once, then one more every
   * `refillMs`. Every call the student causes counts, whether it issued a token or
   * failed (prepared tokens, a double click's shared call, calls aborted because the
   * student left and calls never sent do not). After a failed call the student waits
   * `failureBackoffMs`, doubling with each further failure in a row up to
   * `maxFailureBackoffMs`; a token resets it. Meanwhile the launch shows the last
   * failure's page again, with `Retry-After` and no call; past the share, a 429 page. So a
   * reload loop cannot drain the key. Applies to the default in-process fleet; with
   * `fleet`, set it on `redisFleet({ launchLimit })`, where it holds fleet-wide. Default
   * `{ burst: 3, refillMs: 60 000, failureBackoffMs: 2 000, maxFailureBackoffMs: 60 000 }`.
   */
  launchLimit?: LaunchLimitOptions;
  /**
   * The circuit breaker of the platform's sign-in endpoint (per API key). When at least
   * `minFailures` sign-in calls within `windowMs` failed on the platform's side (5xx,
   * timeouts, resets, unreadable answers, our key refused; never a student's own 4xx such
   * as a full class) and they were at least `failureRatio` of the calls, it opens: launches
   * get a 503 "the exam service is not answering" page with `Retry-After` and no call
   * (prepared tokens are still handed out), and pre-warming pauses. After `openMs` one
   * probe call at a time (lease `probeLeaseMs`) closes it or opens it again. Applies to the
   * default in-process fleet; with `fleet`, set it on `redisFleet({ circuitBreaker })`,
   * where it is shared. Default `{ minFailures: 5, failureRatio: 0.5, windowMs: 30 000,
   * openMs: 15 000, probeLeaseMs: 30 000 }`.
   */
  circuitBreaker?: CircuitBreakerOptions;
  /**
   * What this instance shares with the other instances of the app that use the same API
   * key: launch attempts and wait ids, prepared tokens, the per-student launch limit
   * (see docs/fleet.md). Pass `redisFleet({ url, secret })` when the app runs several
   * instances: the router gives the platform client the fleet's shared rate budget (a
   * client built with another `rateBudget` is a configuration error). The router does not
   * close a fleet it was given. Default: an in-process fleet (one instance; closed with the router).
   */
  fleet?: Fleet;
  /**
   * The students of a class, for `POST /oral-assessments/:examId/prepare` without a
   * `roster` in its body. Default: none (the body must carry the roster).
   */
  roster?: (classId: string, examId: string) => MaybePromise<StudentIdentity[] | undefined>;
  /**
   * The launch record: every launch outcome of an identified student, kept in the store
   * per organization and listed by `GET /oral-assessments/:examId/launches` (see
   * docs/ops.md). Written off the request path in batches; `false` records nothing.
   * Default: on, with every field of `LaunchRecordOptions` at its default (180 days kept).
   */
  launchRecord?: LaunchRecordOptions | false;
  /**
   * The live view's event streams (`GET /oral-assessments/:examId/live` with `Accept:
   * text/event-stream`): how many may be open at once. A stream beyond a cap gets 429
   * problem+json with `Retry-After`. Default `{ maxStreamsPerUser: 5,
   * maxStreamsPerOrganization: 100, maxStreams: 1000 }`.
   */
  live?: LiveViewOptions;
  /** Caps on launch-record pages and CSV exports open at once, and the CSV's stall limit (see docs/ops.md). Default: each field's own. */
  launchExports?: LaunchExportOptions;
  /**
   * Prometheus metrics (`oral_assessments_…`) on the app's own `prom-client` registry:
   * `metrics: { registry }`. Needs `prom-client` installed (an optional peer dependency).
   * See docs/ops.md, "Metrics". Default: unset, nothing counted.
   */
  metrics?: MetricsOptions;
  /** Pre-warming of sign-in tokens before an exam starts, for the `/prepare` routes (see `PrepareOptions`). Default: every field's own default. */
  prepare?: PrepareOptions;
  /**
   * @deprecated The earlier name of `prepare`, still accepted so no integrator breaks;
   * configuration errors name the option you used. Passing both is a configuration error.
   */
  prewarm?: PrepareOptions;
}

/**
 * Pre-warming: tokens are issued in the minutes before `startAt`, paced inside a share
 * of the rate budget, and refreshed until `keepAfterStartMs` after the start. A token is
 * handed out only while it has `minTokenLifeMs` of life left, counted from the moment
 * its request was *sent* (the platform's clock cannot have started earlier).
 */
export interface PrepareOptions {
  /** Token lifetime the platform grants, ms. Default 600 000 (10 minutes, as documented). */
  tokenTtlMs?: number;
  /**
   * Life a token must still have when handed out, ms: time for the redirect, the exam
   * page's load and a slow student's click. Default 120 000 (so a token is usable for 8 of
   * its 10 minutes).
   */
  minTokenLifeMs?: number;
  /**
   * How long before `startAt` issuing begins, ms. Default: auto — the time the roster
   * needs at the paced rate × 1.25 + 30 s, at least 60 s, at most the usable life − 60 s
   * (so the first token issued is still good a minute after the start).
   */
  leadMs?: number;
  /** How long after `startAt` unused tokens are still refreshed, ms (late students). Default 600 000. */
  keepAfterStartMs?: number;
  /**
   * How long a finished plan (its tokens stale) stays readable, ms: its progress in this
   * instance's memory and, in fleet mode, its published input in Redis (which is what keeps
   * the organization's scope alive meanwhile). Default 3 600 000 (an hour).
   */
  keepFinishedMs?: number;
  /** Share of the rate budget pre-warming may use (0 < share ≤ 1), leaving the rest to live launches. Default 0.5. */
  budgetShare?: number;
  /** Pre-warm requests in flight at once. Default 4. */
  concurrency?: number;
  /** Largest roster accepted, students. Default 5 000. */
  maxRoster?: number;
}

/** The launch record (`launchRecord`): how long it is kept, and how it is written off the request path. */
export interface LaunchRecordOptions {
  /** How long records are kept, in days; older ones are purged by the router itself. Default 180. */
  retentionDays?: number;
  /** How often the purge runs, ms. Default 3 600 000 (hourly; the first run soon after start). */
  purgeEveryMs?: number;
  /** Longest a record waits in memory before it is written, ms. Default 1 000. */
  flushMs?: number;
  /**
   * A write starts as soon as this many records wait, and writes at most this many at
   * once: small, because SQLite writes on the event loop the launches share. Default 50.
   */
  batchSize?: number;
  /**
   * Most records held in memory while the store is slow or down; past it new ones are
   * dropped (and counted in the one log line the outage gets). Default 10 000.
   */
  bufferSize?: number;
}

/** The live view's event streams (`live`). Each snapshot is computed once per exam per period, whoever watches. */
export interface LiveViewOptions {
  /** Streams one signed-in user may hold open at once (every exam). Default 5. */
  maxStreamsPerUser?: number;
  /** Streams one organization's users may hold open at once. Default 100. */
  maxStreamsPerOrganization?: number;
  /** Streams this router holds open at once, every organization (one router per process: per process). Default 1000. */
  maxStreams?: number;
}

/** @deprecated The earlier name of `PrepareOptions`. */
export type PrewarmOptions = PrepareOptions;
