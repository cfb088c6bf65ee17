/**
 * `oralAssessments(options)`: the Express plugin. Mount it at any path of an Express 4
 * or 5 app: `app.use("/oral", oralAssessments({ platform, examHost, … }))`.
 */
import express, { type ErrorRequestHandler, type Router } from "express";
import { sqliteStore } from "../store/sqlite.js";
import type { OralStore } from "../store/types.js";
import { bodyParseErrors, jsonBody } from "./body.js";
import { csrfGuard, requireInstructor } from "./guards.js";
import { instructorRoutes } from "./instructor.js";
import { launchRoute } from "./launch.js";
import { buildOpenApiDocument } from "./openapi.js";
import { resolveRouterOptions, type OralAssessmentsOptions } from "./options.js";
import { sendPage } from "./html.js";
import { sendProblem } from "./problem.js";

export type { LaunchContext, OralAssessmentsOptions, StudentIdentity } from "./options.js";

export interface OralAssessmentsRouter extends Router {
  /** Resolves once the store is ready (schema created or migrated); rejects if it cannot be. */
  ready(): Promise<void>;
  /** Closes the store the router uses. */
  close(): Promise<void>;
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

  router.use(INSTRUCTOR_PREFIXES, requireInstructor(settings), csrfGuard(settings), jsonBody(settings.bodyLimit));
  router.use(instructorRoutes(settings, store));
  router.get("/launch/:examId", launchRoute(settings, store));

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
  router.close = async () => { if (storePromise) await (await storePromise).close(); };
  return router;
}
