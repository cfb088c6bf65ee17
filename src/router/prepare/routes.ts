/**
 * Instructor routes for pre-warming:
 *
 *   POST /oral-assessments/:examId/prepare   { startAt, roster? } → 202 { data: progress }
 *   GET  /oral-assessments/:examId/prepare   → 200 { data: progress }, 404 if never prepared
 *
 * Mounted before the generic instructor middleware, behind the same guards, because a
 * roster needs a larger body limit than other instructor calls (`prepareBodyLimit`).
 */
import express, { type RequestHandler, type Router } from "express";
import { expressPath, routeOf } from "../../api/routes.js";
import { asyncHandler } from "../shared/guards.js";
import { PrepareError, type Preparation } from "./preparation.js";
import type { PrepareSettings } from "./settings.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { sendProblem } from "../shared/problem.js";
import { sendJson } from "../shared/json-answer.js";

/** From the one route table (both operations share the path). */
const PATH = expressPath(routeOf("prepareExam").path);

/** The body limit of the pre-warming routes: 1 KiB per student of `prepare.maxRoster`, at least `bodyLimit`'s default. */
export function prepareBodyLimit(settings: PrepareSettings): number {
  return Math.max(100 * 1024, settings.maxRoster * 1024);
}

/**
 * The routes, for a request the guards admitted and whose body is parsed.
 * `idempotent`: the instructor API's `Idempotency-Key` middleware, which every POST of the
 * route table runs. `organizationIdOf`: whose exam a request prepares.
 */
export function prepareRoutes(preparation: Preparation, idempotent: RequestHandler, organizationIdOf: OrganizationIdOf): Router {
  const router = express.Router();

  router.post(PATH, idempotent, asyncHandler(async (req, res) => {
    try {
      const progress = await preparation.prepare(organizationIdOf(req), String(req.params.examId), req.body, req);
      sendJson(res, 202, { data: progress });
    } catch (error) {
      if (!(error instanceof PrepareError)) throw error;
      sendProblem(res, {
        status: error.status,
        code: error.code,
        title: error.status === 404 ? "Not found" : "Invalid request",
        detail: error.message,
        ...(error.errors.length > 0 ? { errors: error.errors } : {}),
      });
    }
  }));

  router.get(PATH, asyncHandler(async (req, res) => {
    const progress = await preparation.sharedProgress(String(req.params.examId));
    if (!progress) {
      sendProblem(res, { status: 404, code: "not_prepared", title: "Not prepared", detail: "This exam has no preparation: POST to this URL first." });
      return;
    }
    sendJson(res, 200, { data: progress });
  }));

  return router;
}
