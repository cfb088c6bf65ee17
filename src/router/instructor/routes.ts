/**
 * The instructor API: courses, classes, oral assessments and role-plays on the platform
 * with the server-held key, recorded in the store. Input is validated with the shared
 * schemas before anything is sent upstream. Handlers live per resource (`courses.ts`,
 * `classes.ts`, `exams.ts`); this file binds them to the route table.
 */
import type { RequestHandler } from "express";
import type { PlatformClient } from "../../platform/types.js";
import type { OralStore } from "../../store/types.js";
import type { OralStoreLtiGradebook } from "../../store/lti-gradebook-types.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { ROUTES, type OperationIdOf } from "../../api/routes.js";
import { routeTable } from "../shared/route-table.js";
import { IDEMPOTENCY_HEADER, idempotentPost } from "./idempotency.js";
import type { Logger } from "../../core/logger.js";
import { classHandlers, type InstructorDeps } from "./classes.js";
import { courseHandlers } from "./courses.js";
import { examHandlers, ORAL_ASSESSMENTS, ROLEPLAYS } from "./exams.js";
import { upstreamWith, type Handler } from "../shared/instructor-http.js";
import { knownRecordsOnly } from "./known-records.js";
import { launchRecordHandlers } from "../records/routes.js";
import type { LaunchRecorder } from "../records/recorder.js";
import type { ExportLimits } from "../records/export-limits.js";
import { sendProblem } from "../shared/problem.js";

const IDEMPOTENCY_HEADER_LOWER = IDEMPOTENCY_HEADER.toLowerCase();

/** The options the instructor API reads. */
export interface InstructorSettings {
  /** How long platform lists (`GET /courses`, a course's classes, a class's exams) are cached, ms; 0 disables. */
  listCacheMs: number;
  /** Largest JSON body accepted, bytes. */
  bodyLimit: number;
  /** Many organizations: a record id is served only when the store knows it for the request's organization (known-records.ts). */
  knownRecordsOnly?: boolean;
  /** With LTI: where the launch records' gradebook entries are read (the LTI store). Default: none shown. */
  gradebookStore?: OralStoreLtiGradebook | undefined;
}

/**
 * `organizationIdOf`: whose records a request reads and writes. `forgetExams`: drops the
 * launch's cached exam → class answers, so a deleted exam's link answers 404 at once on
 * this instance. Default: nothing to forget. `recorder`: the launch recorder, flushed
 * before a launch record list is read; default none. `live`: the exam's live view
 * (records/live.ts), which needs the scope's preparation; default a 404. `exportLimits`:
 * the router's caps on open launch-record exports; default the `launchExports` defaults.
 */
export function instructorRoutes(
  settings: InstructorSettings, platform: PlatformClient, store: OralStore, organizationIdOf: OrganizationIdOf, logger: Logger,
  forgetExams: () => void = () => undefined, recorder?: LaunchRecorder, live?: Handler, exportLimits?: ExportLimits,
): RequestHandler {
  const deps: InstructorDeps = { platform, store, organizationIdOf, upstream: upstreamWith(logger), listCacheMs: settings.listCacheMs, forgetExams };
  const classes = classHandlers(deps);
  const oral = examHandlers(ORAL_ASSESSMENTS, deps);
  const roleplays = examHandlers(ROLEPLAYS, deps);
  const courses = courseHandlers(deps, () => [classes, oral, roleplays].forEach((g) => g.invalidate()));

  // Bound by operationId from the one route table: a missing or misspelt one does not compile.
  const handlers: Record<OperationIdOf<"instructor">, Handler> = {
    ...courses, ...classes.handlers,
    createOralAssessment: oral.create, listOralAssessments: oral.list, getOralAssessment: oral.get,
    updateOralAssessment: oral.update, deleteOralAssessment: oral.remove,
    createRoleplay: roleplays.create, listRoleplays: roleplays.list, getRoleplay: roleplays.get,
    updateRoleplay: roleplays.update, deleteRoleplay: roleplays.remove,
    ...launchRecordHandlers(store, recorder, organizationIdOf, exportLimits, settings.gradebookStore),
    getExamLive: live ?? (async (_req, res) => sendProblem(res, { status: 404, code: "not_found", title: "Not found", detail: "No live view here." })),
  };
  // Every POST of the table, whichever it is, accepts an Idempotency-Key.
  const idempotent = idempotentPost(store, organizationIdOf, logger);
  const routes = ROUTES.filter((r) => r.feature === "instructor");
  for (const route of routes) {
    if (settings.knownRecordsOnly) handlers[route.operationId] = knownRecordsOnly(store, organizationIdOf, handlers[route.operationId]);
    if (route.method === "post") handlers[route.operationId] = behind(idempotent, handlers[route.operationId]);
  }
  // One layer looks the route up (see route-table.ts), instead of an Express route per entry.
  return routeTable(routes, handlers);
}

/**
 * `handler` behind the Idempotency-Key middleware. A request without the header goes
 * straight to the handler (the middleware would only pass it on, at the cost of a
 * promise and a listener per POST). A middleware that answers by itself (a replayed
 * idempotent answer) never calls `next`: the handler then settles when the answer is out.
 */
function behind(middleware: RequestHandler, handler: Handler): Handler {
  return (req, res) => req.headers[IDEMPOTENCY_HEADER_LOWER] === undefined ? handler(req, res) : new Promise<void>((resolve, reject) => {
    res.once("close", () => resolve());
    middleware(req, res, (error?: unknown) => {
      if (error) reject(error);
      else handler(req, res).then(resolve, reject);
    });
  });
}
