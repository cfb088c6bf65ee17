/**
 * A storm stack, all real HTTP on 127.0.0.1: the emulator, a platform client (exposed,
 * so tests can read its rate budget), and a host app whose "session" is the
 * `x-test-user` header (many students without a login round trip each), with the
 * router at `/oral`. `browse()` follows launches like a browser: 303s end the walk,
 * waiting pages are followed through their meta refresh.
 */
import express from "express";
import { createPlatformClient, memoryStore, oralAssessments, type OralAssessmentsOptions, type OralAssessmentsRouter, type PlatformClient, type PlatformClientOptions } from "../../src/index.js";
import type { Emulator, EmulatorOptions, ReceivedRequest } from "../../src/emulator/index.js";
import { captureLogger } from "../support/canary.js";
import { metaRefresh } from "../support/html-page.js";
import { listen, type Listening } from "../support/http.js";
import { startTestEmulator } from "../support/emulator.js";
import { TEST_KEY } from "../support/keys.js";
import { seedExam } from "../support/seed.js";
import { USERS, type TestUser } from "../support/users.js";

export { rosterOf } from "../support/users.js";

/** A response body as JSON, typed by the caller (the router's shapes are tested elsewhere). */
export async function readJson<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

type Created = { data: { _id: string } };

export interface StormStack {
  emulator: Emulator;
  platform: PlatformClient;
  router: OralAssessmentsRouter;
  app: Listening;
  logger: ReturnType<typeof captureLogger>;
  /** An HTTP request as `user` (a name of USERS, or undefined for signed out). */
  as(user: string | undefined, path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
  /** Sign-in token requests the emulator received since the stack started. */
  signIns(): ReceivedRequest[];
  seedExam(): Promise<{ courseId: string; classId: string; examId: string }>;
  /**
   * Creates course → class → assessment with a separate client (its own rate budget), and
   * lets the router find the exam through `resolveClassId`: the router's budget stays
   * untouched for the launches under test.
   */
  seedDirect(): Promise<{ courseId: string; classId: string; examId: string }>;
  close(): Promise<void>;
}

export interface StormOptions {
  emulator?: EmulatorOptions;
  client?: Partial<PlatformClientOptions>;
  router?: Partial<OralAssessmentsOptions>;
}

export async function startStormStack(options: StormOptions = {}): Promise<StormStack> {
  // prod's 600/min on the dev key, so pre-warming (paced at half the budget) is quick.
  const emulator = await startTestEmulator({ rateLimits: { dev: 600 }, ...options.emulator });
  const logger = captureLogger();
  const platform = createPlatformClient({
    apiKey: TEST_KEY, baseUrl: emulator.url, timeoutMs: 2_000, maxRetries: 1, rateLimitPerMinute: 600, logger, ...options.client,
  });
  const direct = new Map<string, { classId: string; courseId: string }>();
  const router = oralAssessmentsFor(platform, emulator, logger, {
    resolveClassId: (examId) => direct.get(examId),
    ...options.router,
  });
  const host = express();
  host.use((req, _res, next) => {
    const name = req.get("x-test-user");
    if (name) (req as unknown as { user?: TestUser }).user = USERS.find((u) => u.username === name);
    next();
  });
  host.use("/oral", router);
  const app = await listen(host);

  const as: StormStack["as"] = (user, path, init = {}) => fetch(new URL(path, app.url), {
    method: init.method ?? "GET",
    redirect: "manual",
    headers: {
      ...(user ? { "x-test-user": user } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });

  const seed = () => seedExam(async (path, body) => {
    const res = await as("ines", path, { method: "POST", body });
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}`);
    return readJson<Created>(res);
  });

  const seedDirect = async () => {
    const admin = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateLimitPerMinute: 1_000 });
    try {
      const course = await admin.courses.create({ name: "Direct 101" });
      const cls = await admin.classes.create(course.data._id, { name: "Direct", startDate: "2026-09-01", endDate: "2026-12-20" });
      const exam = await admin.oralAssessments.create({ name: "Oral", classId: cls.data._id, questions: [{ text: "Why?" }] });
      direct.set(exam.data._id, { classId: cls.data._id, courseId: course.data._id });
      return { courseId: course.data._id, classId: cls.data._id, examId: exam.data._id };
    } finally {
      admin.close();
    }
  };

  return {
    emulator, platform, router, app, logger, as, seedExam: seed, seedDirect,
    signIns: () => emulator.requests.filter((r) => r.path === "/students/sign-in-token"),
    close: async () => {
      await app.close();
      await router.close();
      platform.close();
      await emulator.close();
    },
  };
}

function oralAssessmentsFor(platform: PlatformClient, emulator: Emulator, logger: ReturnType<typeof captureLogger>, overrides: Partial<OralAssessmentsOptions> = {}): OralAssessmentsRouter {
  return oralAssessments({
    platform,
    store: memoryStore(),
    examHost: emulator.examHost,
    logger,
    isInstructor: (req) => (req.user as TestUser | undefined)?.role === "instructor",
    ...overrides,
    canLaunch: overrides.canLaunch ?? "any-signed-in-user",
  });
}

export interface Walk {
  /** The final 303's Location, if the walk ended in one. */
  location: string | undefined;
  /** The final status (303 on success). */
  status: number;
  /** Waiting pages seen on the way. */
  waitingPages: number;
  /** Every refresh URL followed. */
  refreshUrls: string[];
  body: string;
}

/** Launches as `user` and follows waiting pages like a browser, up to `maxPages`. */
export async function browse(stack: StormStack, user: string, path: string, maxPages = 200): Promise<Walk> {
  let next = path;
  const refreshUrls: string[] = [];
  for (let pages = 0; ; pages++) {
    const res = await stack.as(user, next);
    const body = await res.text();
    const refresh = res.status === 202 ? metaRefresh(body) : undefined;
    if (!refresh || pages >= maxPages) {
      return { location: res.headers.get("location") ?? undefined, status: res.status, waitingPages: pages, refreshUrls, body };
    }
    if (refresh.delayS > 0) await new Promise((r) => setTimeout(r, refresh.delayS * 1000));
    refreshUrls.push(refresh.url);
    next = refresh.url;
  }
}

/** The ticket in an exam page URL. */
export function ticketOf(location: string | undefined): string {
  return new URL(location ?? "http://x/").searchParams.get("__clerk_ticket") ?? "";
}

/** Polls `check` every 50 ms until it returns true (bounded by the test's own timeout). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

/** Largest number of timestamps within any `windowMs` span. */
export function maxInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}
