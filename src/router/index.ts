/**
 * `oralAssessments(options)`: the Express plugin. Mount it at any path of an Express 4
 * or 5 app: `app.use("/oral", oralAssessments({ platform, examHost, … }))`.
 */
import express, { type ErrorRequestHandler, type Router } from "express";
import { sqliteStore } from "../store/sqlite.js";
import type { OralStore } from "../store/types.js";
import { bodyParseErrors, jsonBody } from "./shared/body.js";
import { csrfGuard, requireInstructor } from "./shared/guards.js";
import { instructorRoutes } from "./instructor/routes.js";
import { launchRoute } from "./launch/route.js";
import { LaunchQueue } from "./launch/attempts.js";
import { buildOpenApiDocument } from "../api/openapi.js";
import { resolveRouterOptions, type OralAssessmentsOptions } from "./options.js";
import { sendPage } from "./shared/html.js";
import { sendProblem } from "./shared/problem.js";
import { createPreparation, type PrepareInput } from "./prepare/preparation.js";
import { prepareRoutes } from "./prepare/routes.js";
import { Prewarmer } from "./prepare/preparer.js";
import type { PrepareProgress } from "./prepare/plan.js";

export type { LaunchContext, OralAssessmentsOptions, PrewarmOptions, StudentIdentity } from "./options.js";
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

/** The route prefixes of the instructor API (everything but the launch route). */
export const INSTRUCTOR_PREFIXES = ["/courses", "/oral-assessments", "/classes"];

export function oralAssessments(options: OralAssessmentsOptions): OralAssessmentsRouter {
  const settings = resolveRouterOptions(options);
  const { logger } = settings;

  // The default store opens a SQLite file, so it is created on first use, not at import.
  let storePromise: Promise<OralStore> | undefined;
  const store = (): Promise<OralStore> => {
    if (!storePromise) {
      storePromise = (async () => {
        const s = settings.store ?? sqliteStore();
        await s.init();
        return s;
      })();
      storePromise.catch((error: unknown) => {
        // Forget the failure, so the next request tries again (the database may be back).
        storePromise = undefined;
        logger.error({ event: "store_unavailable", error: (error as Error)?.message }, "the oral-assessments store could not be opened");
      });
    }
    return storePromise;
  };

  const router = express.Router() as OralAssessmentsRouter;
  // A pending launch nobody asked about for this long is abandoned: well above the gap
  // between a waiting page and its refresh (one hold plus a page load).
  const queue = new LaunchQueue({ abandonMs: Math.max(15_000, 4 * settings.waitingPageAfterMs) });
  const prewarmer = new Prewarmer(settings.platform, settings.prewarm, logger);
  const preparation = createPreparation(settings, store, prewarmer);

  // First: the launch route is the hot path of an exam-day storm, and matches nothing else.
  router.get("/launch/:examId", launchRoute(settings, store, { queue, prewarmer }));
  // Before the generic instructor middleware: a roster needs its own body limit.
  router.use(prepareRoutes(settings, preparation));
  router.use(INSTRUCTOR_PREFIXES, requireInstructor(settings), csrfGuard(settings), jsonBody(settings.bodyLimit));
  router.use(instructorRoutes(settings, store));

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
    if (req.path.startsWith("/launch/")) {
      sendPage(res, { status: 500, title: "Something went wrong", message: "We could not start your exam. Please try again in a minute.", retryHref: req.originalUrl });
    } else {
      sendProblem(res, { status: 500, code: "internal_error", title: "Internal error", detail: "The request could not be completed. It has been logged." });
    }
  };
  router.use(lastResort);

  router.ready = async () => { await store(); };
  router.close = async () => {
    queue.close();
    prewarmer.close();
    if (storePromise) await (await storePromise).close();
  };
  router.prepare = (examId, input) => preparation.prepare(examId, input);
  router.preparation = (examId) => preparation.progress(examId);
  return router;
}
