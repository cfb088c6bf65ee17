/**
 * The router's options, and their validation into settings. Every mistake is collected
 * and thrown once, as a ConfigurationError listing each problem with its fix.
 */
import type { Request } from "express";
import { ProblemList } from "../core/configuration-error.js";
import { toLogger, type Logger } from "../core/logger.js";
import type { PlatformClient } from "../platform/types.js";
import type { OralStore } from "../store/types.js";
import { userOf } from "./shared/user.js";

/** The student a launch signs in, as the platform's sign-in endpoint wants it. */
export interface StudentIdentity {
  email: string;
  firstName: string;
  lastName: string;
  orgInternalId: string;
}

export interface LaunchContext {
  examId: string;
  classId: string;
  courseId: string | undefined;
  student: StudentIdentity;
}

type MaybePromise<T> = T | Promise<T>;

export interface OralAssessmentsOptions {
  /** The platform client (`createPlatformClient`). Required. */
  platform: PlatformClient;
  /**
   * The organization's custom exam domain, an origin such as `https://exams.example.edu`
   * (https; http only for localhost). The only host the router ever redirects to.
   * Default: unset → students go to the platform's own host, and no sign-in token is needed.
   */
  examHost?: string;
  /** Who may use the instructor API. Default: nobody (deny by default). */
  isInstructor?: (req: Request) => MaybePromise<boolean>;
  /**
   * Maps the logged-in user to the student the platform signs in. Default: `email`,
   * `firstName`, `lastName`, `orgInternalId` read from `req.user`, `orgInternalId`
   * falling back to `req.user.id`.
   */
  student?: (req: Request) => MaybePromise<Partial<StudentIdentity> | undefined>;
  /** Whether this user may launch this exam (e.g. a roster check). Default: every logged-in user may. */
  canLaunch?: (req: Request, ctx: LaunchContext) => MaybePromise<boolean>;
  /**
   * Finds the class of an exam the store does not know (integrators who keep their own
   * mapping). Default: none — only exams created through this router can be launched.
   */
  resolveClassId?: (examId: string, req: Request) => MaybePromise<string | { classId: string; courseId?: string } | undefined>;
  /** Where created records live. Default: `sqliteStore()`, a file `oral-assessments.sqlite` in the working directory. */
  store?: OralStore;
  /** Query parameter that carries the sign-in token to the exam page. Default `__clerk_ticket`. */
  ticketParam?: string;
  /**
   * Where a signed-out student is sent, with `?returnTo=<relative launch path>`: a path
   * on this site (`/login`) or an absolute http(s) URL. Default: unset → a 401 page.
   */
  loginUrl?: string;
  /** Largest JSON body accepted, in bytes or a size string. Default `"100kb"`. */
  bodyLimit?: number | string;
  /**
   * Origins, besides this site's own, allowed to call state-changing instructor routes
   * from a browser (cookie-session CSRF defence). Default: none.
   */
  trustedOrigins?: string[];
  /** How long `GET /courses` answers are cached, ms (the vendor advises caching lists). 0 disables. Default 5 000. */
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
   * The students of a class, for `POST /oral-assessments/:examId/prepare` without a
   * `roster` in its body. Default: none (the body must carry the roster).
   */
  roster?: (classId: string, examId: string) => MaybePromise<StudentIdentity[] | undefined>;
  /** Pre-warming of sign-in tokens before an exam starts (see `PrewarmOptions`). */
  prewarm?: PrewarmOptions;
}

/**
 * Pre-warming: tokens are issued in the minutes before `startAt`, paced inside a share
 * of the rate budget, and refreshed until `keepAfterStartMs` after the start. A token is
 * handed out only while it has `minTokenLifeMs` of life left, counted from the moment
 * its request was *sent* (the platform's clock cannot have started earlier).
 */
export interface PrewarmOptions {
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
  /** Share of the rate budget pre-warming may use (0 < share ≤ 1), leaving the rest to live launches. Default 0.5. */
  budgetShare?: number;
  /** Pre-warm requests in flight at once. Default 4. */
  concurrency?: number;
  /** Largest roster accepted, students. Default 5 000. */
  maxRoster?: number;
}

export interface PrewarmSettings {
  tokenTtlMs: number;
  minTokenLifeMs: number;
  leadMs: number | undefined;
  keepAfterStartMs: number;
  budgetShare: number;
  concurrency: number;
  maxRoster: number;
}

export interface RouterSettings {
  platform: PlatformClient;
  examHost: string | undefined;
  isInstructor: (req: Request) => MaybePromise<boolean>;
  student: (req: Request) => MaybePromise<Partial<StudentIdentity> | undefined>;
  canLaunch: ((req: Request, ctx: LaunchContext) => MaybePromise<boolean>) | undefined;
  resolveClassId: OralAssessmentsOptions["resolveClassId"];
  /** Undefined until the default store is created lazily (the native module loads on first use). */
  store: OralStore | undefined;
  ticketParam: string;
  loginUrl: string | undefined;
  bodyLimit: number | string;
  trustedOrigins: Set<string>;
  listCacheMs: number;
  logger: Logger;
  launchWaitMs: number;
  waitingPageAfterMs: number;
  roster: OralAssessmentsOptions["roster"];
  prewarm: PrewarmSettings;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const STORE_METHODS = ["init", "putCourse", "getCourse", "listCourses", "deleteCourse", "putClass", "getClass", "listClasses", "putAssessment", "getAssessment", "listAssessments", "close"] as const;

/** The default student mapper: reads the identity fields from passport's `req.user`. */
export function studentFromUser(req: Request): Partial<StudentIdentity> | undefined {
  const user = userOf(req);
  if (!user) return undefined;
  const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : undefined);
  return {
    email: text(user.email),
    firstName: text(user.firstName),
    lastName: text(user.lastName),
    orgInternalId: text(user.orgInternalId) ?? text(user.id),
  };
}

function checkOrigin(value: unknown, option: string, problems: ProblemList, allowHttpLoopbackOnly: boolean): string | undefined {
  if (typeof value !== "string" || value.length === 0) {
    problems.add(option, "must be an origin string.", `Set ${option} to e.g. "https://exams.example.edu".`);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.add(option, `"${value}" is not a URL.`, `Set ${option} to an origin such as "https://exams.example.edu".`);
    return undefined;
  }
  const httpAllowed = !allowHttpLoopbackOnly || LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && httpAllowed)) {
    problems.add(option, `must use https (http is allowed only for localhost), got "${url.protocol}".`, `Use "https://${url.host}".`);
    return undefined;
  }
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || url.username || url.password) {
    problems.add(option, "must be an origin only (no path, query, fragment or credentials).", `Use "${url.origin}".`);
    return undefined;
  }
  return url.origin;
}

export function resolveRouterOptions(options: OralAssessmentsOptions | undefined): RouterSettings {
  const problems = new ProblemList();
  const o = (options ?? {}) as Partial<OralAssessmentsOptions>;

  const platform = o.platform;
  if (!platform || typeof platform.students?.createSignInToken !== "function" || typeof platform.courses?.create !== "function") {
    problems.add("platform", "is missing or is not a platform client.", "Pass `platform: createPlatformClient({ apiKey, baseUrl })`.");
  }

  const examHost = o.examHost === undefined ? undefined : checkOrigin(o.examHost, "examHost", problems, true);

  for (const name of ["isInstructor", "student", "canLaunch", "resolveClassId"] as const) {
    if (o[name] !== undefined && typeof o[name] !== "function") {
      problems.add(name, `must be a function, got ${typeof o[name]}.`, `Pass a function or leave ${name} out for the default.`);
    }
  }

  if (o.store !== undefined) {
    const missing = STORE_METHODS.filter((m) => typeof (o.store as unknown as Record<string, unknown>)?.[m] !== "function");
    if (missing.length > 0) {
      problems.add("store", `does not implement ${missing.join(", ")}.`, "Pass memoryStore(), sqliteStore({ filename }) or postgresStore({ connectionString }).");
    }
  }

  const ticketParam = o.ticketParam ?? "__clerk_ticket";
  if (typeof ticketParam !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(ticketParam)) {
    problems.add("ticketParam", "must be 1–64 characters of letters, digits, '_', '.' or '-'.", 'Leave it out for "__clerk_ticket", or name the parameter your exam page reads.');
  }

  let loginUrl: string | undefined;
  if (o.loginUrl !== undefined) {
    const v = o.loginUrl;
    if (typeof v === "string" && v.startsWith("/") && !v.startsWith("//") && !v.includes("\\")) loginUrl = v;
    else if (typeof v === "string" && /^https?:\/\//i.test(v) && URL.canParse(v)) loginUrl = v;
    else problems.add("loginUrl", "must be a path on this site (\"/login\") or an absolute http(s) URL.", 'Use e.g. loginUrl: "/login".');
  }

  const bodyLimit = o.bodyLimit ?? "100kb";
  if (!(typeof bodyLimit === "number" && bodyLimit > 0) && !(typeof bodyLimit === "string" && /^\d+(\.\d+)?\s*(b|kb|mb)?$/i.test(bodyLimit))) {
    problems.add("bodyLimit", "must be a positive number of bytes or a size like \"100kb\".", 'Use e.g. bodyLimit: "100kb".');
  }

  const trustedOrigins = new Set<string>();
  if (o.trustedOrigins !== undefined) {
    if (!Array.isArray(o.trustedOrigins)) problems.add("trustedOrigins", "must be an array of origins.", 'Use e.g. ["https://lms.example.edu"].');
    else o.trustedOrigins.forEach((v, i) => {
      const origin = checkOrigin(v, `trustedOrigins[${i}]`, problems, false);
      if (origin) trustedOrigins.add(origin);
    });
  }

  const listCacheMs = o.listCacheMs ?? 5_000;
  if (typeof listCacheMs !== "number" || !Number.isFinite(listCacheMs) || listCacheMs < 0) {
    problems.add("listCacheMs", "must be a number of milliseconds ≥ 0.", "Use 0 to disable the cache, or leave it out for 5000.");
  }

  const launchWaitMs = wholeMs(problems, "launchWaitMs", o.launchWaitMs, 120_000, 1_000);
  const waitingPageAfterMs = wholeMs(problems, "waitingPageAfterMs", o.waitingPageAfterMs, 2_000, 0);
  if (waitingPageAfterMs > 30_000) {
    problems.add("waitingPageAfterMs", "must be at most 30000: proxies and browsers give up on requests held longer.", "Use a few seconds, e.g. 2000.");
  }
  if (o.roster !== undefined && typeof o.roster !== "function") {
    problems.add("roster", `must be a function, got ${typeof o.roster}.`, "Pass (classId, examId) => students, or leave it out.");
  }
  const prewarm = resolvePrewarm(o.prewarm, problems);

  problems.throwIfAny("oralAssessments()");
  return {
    platform: platform as PlatformClient,
    examHost,
    isInstructor: o.isInstructor ?? (() => false),
    student: o.student ?? studentFromUser,
    canLaunch: o.canLaunch,
    resolveClassId: o.resolveClassId,
    store: o.store,
    ticketParam,
    loginUrl,
    bodyLimit,
    trustedOrigins,
    listCacheMs,
    logger: toLogger(o.logger),
    launchWaitMs,
    waitingPageAfterMs,
    roster: o.roster,
    prewarm,
  };
}

function wholeMs(problems: ProblemList, option: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    problems.add(option, `must be a whole number ≥ ${min}.`, `Leave it out for the default (${fallback}).`);
    return fallback;
  }
  return value;
}

function resolvePrewarm(input: PrewarmOptions | undefined, problems: ProblemList): PrewarmSettings {
  const p = (input ?? {}) as Partial<PrewarmOptions>;
  if (input !== undefined && (input === null || typeof input !== "object")) problems.add("prewarm", "must be an object.", "Pass { tokenTtlMs, … } or leave it out.");
  const tokenTtlMs = wholeMs(problems, "prewarm.tokenTtlMs", p.tokenTtlMs, 600_000, 1);
  const minTokenLifeMs = wholeMs(problems, "prewarm.minTokenLifeMs", p.minTokenLifeMs, 120_000, 0);
  if (minTokenLifeMs >= tokenTtlMs) {
    problems.add("prewarm.minTokenLifeMs", `(${minTokenLifeMs}) must be less than prewarm.tokenTtlMs (${tokenTtlMs}).`, "A token must be usable for some time after it is issued.");
  }
  const leadMs = p.leadMs === undefined ? undefined : wholeMs(problems, "prewarm.leadMs", p.leadMs, 0, 0);
  const keepAfterStartMs = wholeMs(problems, "prewarm.keepAfterStartMs", p.keepAfterStartMs, 600_000, 0);
  const budgetShare = p.budgetShare ?? 0.5;
  if (typeof budgetShare !== "number" || !(budgetShare > 0 && budgetShare <= 1)) {
    problems.add("prewarm.budgetShare", "must be a number above 0 and at most 1.", "Leave it out for 0.5.");
  }
  const concurrency = wholeMs(problems, "prewarm.concurrency", p.concurrency, 4, 1);
  const maxRoster = wholeMs(problems, "prewarm.maxRoster", p.maxRoster, 5_000, 1);
  return { tokenTtlMs, minTokenLifeMs, leadMs, keepAfterStartMs, budgetShare, concurrency, maxRoster };
}
