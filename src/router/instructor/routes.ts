/**
 * The instructor API: courses, classes, oral assessments and role-plays on the platform
 * with the server-held key, recorded in the store. Input is validated with the shared
 * schemas before anything is sent upstream. Handlers live per resource (`courses.ts`,
 * `classes.ts`, `exams.ts`); this file binds them to the route table.
 */
import express, { type Router } from "express";
import type { PlatformClient } from "../../platform/types.js";
import type { OralStore } from "../../store/types.js";
import { expressPath, ROUTES } from "../../api/routes.js";
import { asyncHandler } from "../shared/guards.js";
import type { Logger } from "../../core/logger.js";
import { classHandlers, type InstructorDeps } from "./classes.js";
import { courseHandlers } from "./courses.js";
import { EXAM_KINDS, examHandlers } from "./exams.js";
import { upstreamWith, type Handler } from "./http.js";

/** The options the instructor API reads. */
export interface InstructorSettings {
  /** How long platform lists (`GET /courses`, a course's classes, a class's exams) are cached, ms; 0 disables. */
  listCacheMs: number;
  /** Largest JSON body accepted. */
  bodyLimit: number | string;
}

/**
 * `forgetExams`: drops the launch's cached exam → class answers, so a deleted exam's
 * link answers 404 at once on this instance. Default: nothing to forget.
 */
export function instructorRoutes(
  settings: InstructorSettings, platform: PlatformClient, store: OralStore, logger: Logger, forgetExams: () => void = () => undefined,
): Router {
  const router = express.Router();
  const deps: InstructorDeps = { platform, store, upstream: upstreamWith(logger), listCacheMs: settings.listCacheMs, forgetExams };
  const groups = [classHandlers(deps), ...EXAM_KINDS.map((kind) => examHandlers(kind, deps))];
  const courses = courseHandlers(deps, () => groups.forEach((g) => g.invalidate()));

  // Bound by operationId from the one route table, at the table's paths and methods.
  const handlers: Record<string, Handler> = Object.assign({}, courses, ...groups.map((g) => g.handlers));
  for (const route of ROUTES.filter((r) => r.feature === "instructor")) {
    const handler = handlers[route.operationId];
    if (!handler) throw new Error(`No instructor handler for ${route.operationId}.`);
    router[route.method](expressPath(route.path), asyncHandler(handler));
  }
  return router;
}
