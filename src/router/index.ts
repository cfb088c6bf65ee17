/**
 * `oralAssessments(options)`: the Express plugin. Mount it at any path of an Express 4
 * or 5 app: `app.use("/oral", oralAssessments({ platform, examHost, … }))`.
 *
 * Composition only: options become per-feature settings (`settings.ts`), and each
 * feature folder (`launch/`, `prepare/`, `instructor/`) gets its own settings and the
 * shared objects it needs (platform client, store, exam directory, logger).
 */
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from "express";
import { buildOpenApiDocument } from "../api/openapi.js";
import { INSTRUCTOR_PREFIXES, routeOf } from "../api/routes.js";
import { sqliteStore } from "../store/sqlite.js";
import { instructorRoutes } from "./instructor/routes.js";
import { LaunchAttempts } from "./launch/attempts.js";
import { sendLastResortPage } from "./launch/pages.js";
import { launchRoute } from "./launch/route.js";
import type { OralAssessmentsOptions } from "./shared/options.js";
import type { PrepareProgress } from "./prepare/plan.js";
import { createPreparation, type PrepareInput } from "./prepare/preparation.js";
import { TokenPreparer } from "./prepare/preparer.js";
import { prepareRoutes } from "./prepare/routes.js";
import { resolveRouterOptions } from "./settings.js";
import { bodyParseErrors, jsonBody } from "./shared/body.js";
import { chain } from "./shared/chain.js";
import { ExamDirectory } from "./shared/exam-directory.js";
import { instructorGuards } from "./shared/guards.js";
import { pageSettings } from "./shared/html.js";
import { sendProblem } from "./shared/problem.js";

export type {
  LaunchContext, OralAssessmentsOptions, PrepareOptions, PrewarmOptions, StudentIdentity,
  RenderPage, RouterPage, RouterPageKind, RouterPageLink,
} from "./shared/options.js";
export { PrepareError, type PrepareInput } from "./prepare/preparation.js";
export type { PrepareProgress } from "./prepare/plan.js";

export interface OralAssessmentsRouter extends Router {
  /** Resolves once the store is ready (schema created or migrated); rejects if it cannot be. */
  ready(): Promise<void>;
  /** Closes the store the router uses, and stops pre-warming and waiting launches. */
  close(): Promise<void>;
  /**
   * Pre-warms sign-in tokens for an exam's roster before `startAt` (what
   * `POST /oral-assessments/:examId/prepare` does). Replaces an earlier plan for the
   * exam, keeping its usable tokens. Rejects with a `PrepareError` (400 or 404 semantics).
   */
  prepare(examId: string, input: PrepareInput): Promise<PrepareProgress>;
  /** The exam's pre-warming progress; undefined when it was never prepared. */
  preparation(examId: string): PrepareProgress | undefined;
}

/** The first segment of the pre-warming routes, with its slash: `/oral-assessments/`. */
const PREPARE_PREFIX = `/${routeOf("prepareExam").path.split("/")[1]}/`;

/**
 * Hands a request to `handler` only when its path starts with `prefix`, compared as the
 * router compares paths (case-insensitively); others go on at once. Unlike mounting at
 * a path, nothing of the URL is stripped, so the handler's routes keep their full paths.
 */
function onlyUnder(prefix: string, handler: RequestHandler): RequestHandler {
  const lower = prefix.toLowerCase();
  const gated: RequestHandler = (req, res, next) => {
    if (req.url.slice(0, lower.length).toLowerCase() === lower) handler(req, res, next);
    else next();
  };
  // A router's layers stay visible, as they were when it was mounted directly: tools
  // listing the router's routes (and the OpenAPI test) walk `stack`.
  return Object.assign(gated, { stack: (handler as { stack?: unknown }).stack });
}

export function oralAssessments(options: OralAssessmentsOptions): OralAssessmentsRouter {
  const settings = resolveRouterOptions(options);
  const { platform, logger } = settings;
  // A plain store: every store method opens it on first use (and retries a failed
  // opening), so the default SQLite file is created on the first request, not here.
  const store = settings.store ?? sqliteStore();
  const directory = new ExamDirectory(store, settings.resolveClassId);

  const router = express.Router() as OralAssessmentsRouter;
  // A pending launch nobody asked about for this long is abandoned: well above the gap
  // between a waiting page and its refresh (one hold plus a page load).
  const attempts = new LaunchAttempts({ abandonMs: Math.max(15_000, 4 * settings.launch.waitingPageAfterMs) });
  const preparer = new TokenPreparer(platform, settings.prepare, logger);
  const preparation = createPreparation(settings.prepare, directory, preparer);

  // Before any route: every HTML page of this router gets its homeUrl and layout.
  router.use(pageSettings(settings.pages));
  // First: the launch route is the hot path of an exam-day storm, and matches nothing else.
  router.get("/launch/:examId", launchRoute(settings.launch, { platform, logger, directory, attempts, preparer }));
  // Before the generic instructor middleware: a roster needs its own body limit.
  // Entered only by its own prefix: every other instructor request skips the sub-router.
  router.use(onlyUnder(PREPARE_PREFIX, prepareRoutes(settings.prepare, settings.guards, preparation)));
  // Guards and body parser as one layer: they always run together (see chain.ts).
  router.use([...INSTRUCTOR_PREFIXES], chain([...instructorGuards(settings.guards), jsonBody(settings.instructor.bodyLimit)]));
  router.use(instructorRoutes(settings.instructor, platform, store, logger));

  // Public: it describes routes and shapes, nothing about this deployment's data.
  const documents = new Map<string, string>();
  router.get("/openapi.json", (req, res) => {
    let doc = documents.get(req.baseUrl);
    if (doc === undefined) {
      doc = JSON.stringify(buildOpenApiDocument({ serverUrl: req.baseUrl || "/" }));
      documents.set(req.baseUrl, doc);
    }
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.end(doc);
  });
  router.use(bodyParseErrors);

  const lastResort: ErrorRequestHandler = (error, req, res, _next) => {
    logger.error({ event: "router_error", path: req.path, error: (error as Error)?.message }, "unexpected error in the oral-assessments router");
    if (req.path.startsWith("/launch/")) sendLastResortPage(res, req.originalUrl);
    else sendProblem(res, { status: 500, code: "internal_error", title: "Internal error", detail: "The request could not be completed. It has been logged." });
  };
  router.use(lastResort);

  router.ready = async () => {
    try {
      await store.init();
    } catch (error) {
      logger.error({ event: "store_unavailable", error: (error as Error)?.message }, "the oral-assessments store could not be opened");
      throw error;
    }
  };
  router.close = async () => {
    attempts.close();
    preparer.close();
    await store.close();
  };
  router.prepare = (examId, input) => preparation.prepare(examId, input);
  router.preparation = (examId) => preparation.progress(examId);
  return router;
}
