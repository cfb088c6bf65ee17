/**
 * `oralAssessments(options)`: the Express plugin. Mount it at any path of an Express 4
 * or 5 app: `app.use("/oral", oralAssessments({ platform, examHost, … }))`.
 *
 * Composition only: options become per-feature settings (`settings.ts`), and each
 * feature folder (`launch/`, `prepare/`, `instructor/`) gets its own settings and the
 * shared objects it needs (platform client, store, exam directory, logger).
 */
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from "express";
import { INSTRUCTOR_PREFIXES, routeOf } from "../api/routes.js";
import { onlyUnder } from "./shared/only-under.js";
import { sqliteStore } from "../store/sqlite.js";
import { inProcessFleet } from "../fleet/fleet.js";
import { breakerScope } from "../fleet/circuit-breaker.js";
import { platformBreaker } from "../fleet/platform-breaker.js";
import { openApiRoute } from "./meta/openapi-route.js";
import { idempotentPost } from "./instructor/idempotency.js";
import { instructorRoutes } from "./instructor/routes.js";
import { LaunchAttempts } from "./launch/attempts.js";
import { sendLastResortPage } from "./launch/pages.js";
import { launchRoute } from "./launch/route.js";
import { ltiMount } from "./lti-mount.js";
import type { OralAssessmentsOptions } from "./shared/options.js";
import type { PrepareProgress } from "./prepare/plan.js";
import { PlanCoordinator } from "./prepare/coordinator.js";
import { createPreparation, type PrepareInput } from "./prepare/preparation.js";
import { TokenPreparer } from "./prepare/preparer.js";
import { prepareRoutes } from "./prepare/routes.js";
import { resolveRouterOptions } from "./settings.js";
import { bodyParseErrors, jsonBody } from "./shared/body.js";
import { chain } from "./shared/chain.js";
import { ExamDirectory } from "./shared/exam-directory.js";
import { instructorGuards } from "./shared/guards.js";
import { pageSettings, sendPage } from "./shared/html.js";
import { invalidInput, sendProblem } from "./shared/problem.js";
import { isBadEncoding, undecodableParams } from "./shared/bad-encoding.js";

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
  /**
   * The exam's pre-warming progress as the fleet sees it: in fleet mode the plan's leader's
   * (whichever instance runs it), readable on every instance; in process, `preparation`.
   */
  sharedPreparation(examId: string): Promise<PrepareProgress | undefined>;
}

/** The first segment of the pre-warming routes, with its slash: `/oral-assessments/`. */
const PREPARE_PREFIX = `/${routeOf("prepareExam").path.split("/")[1]}/`;

export function oralAssessments(options: OralAssessmentsOptions): OralAssessmentsRouter {
  const settings = resolveRouterOptions(options);
  const { platform, logger } = settings;
  // A plain store: every store method opens it on first use (and retries a failed
  // opening), so the default SQLite file is created on the first request, not here.
  const store = settings.store ?? sqliteStore();
  const directory = new ExamDirectory(store, settings.resolveClassId);

  const router = express.Router() as OralAssessmentsRouter;
  // One code path: the router talks to the fleet's stores, in process (the default, one
  // instance) or shared (redisFleet); the modes differ only in the implementation.
  const fleet = settings.fleet ?? inProcessFleet({ launchLimit: settings.launchLimit, circuitBreaker: settings.circuitBreaker });
  const attempts = new LaunchAttempts(fleet.attempts, {
    // A pending launch nobody asked about for this long is abandoned: well above the gap
    // between a waiting page and its refresh (one hold plus a page load).
    abandonMs: Math.max(15_000, 4 * settings.launch.waitingPageAfterMs),
    leaseMs: fleet.attemptLeaseMs,
    onIssued: ({ examId, userKey }) => void fleet.launchLimiter.record(examId, userKey).catch(() => undefined),
  });
  // One breaker for the sign-in endpoint of this key, whoever calls it (launches, pre-warming).
  const signInBreaker = platformBreaker(fleet.breaker, breakerScope({ keyHash: platform.keyId ?? "unnamed-key", endpoint: "students/sign-in-token" }), "students/sign-in-token", logger);
  const preparer = new TokenPreparer(platform, settings.prepare, logger, fleet.preparedTokens, signInBreaker);
  // Fleet mode: one instance runs each plan (a lease), whichever received `prepare`.
  const coordinator = fleet.kind === "redis" ? new PlanCoordinator(fleet, preparer, logger) : undefined;
  const preparation = createPreparation(settings.prepare, directory, preparer, coordinator);

  // Before any route: every HTML page of this router gets its homeUrl and layout.
  router.use(pageSettings(settings.pages));
  // First: the launch route is the hot path of an exam-day storm, and matches nothing else.
  const launchDeps = { platform, logger, directory, attempts, preparer, launchLimiter: fleet.launchLimiter, breaker: signInBreaker };
  // The role-play launch before `/launch/:examId`, which would take "roleplay" for an exam id.
  router.get("/launch/roleplay/:roleplayId", launchRoute(settings.launch, launchDeps, "roleplay"));
  router.get("/launch/:examId", launchRoute(settings.launch, launchDeps));
  // The LMS's way in (LTI 1.3): its own paths under /lti/, the same launch behind them.
  if (settings.lti) router.use(ltiMount(settings.lti, settings.launch, launchDeps, fleet));
  // Before the generic instructor middleware: a roster needs its own body limit.
  // Entered only by its own prefix: every other instructor request skips the sub-router.
  router.use(onlyUnder(PREPARE_PREFIX, prepareRoutes(settings.prepare, settings.guards, preparation, idempotentPost(store, logger))));
  // Guards and body parser as one layer: they always run together (see chain.ts).
  router.use([...INSTRUCTOR_PREFIXES], chain([...instructorGuards(settings.guards), jsonBody(settings.instructor.bodyLimit)]));
  router.use(instructorRoutes(settings.instructor, platform, store, logger, () => directory.forget()));

  router.get("/openapi.json", openApiRoute());
  router.use(bodyParseErrors);

  const lastResort: ErrorRequestHandler = (error, req, res, _next) => {
    if (isBadEncoding(error)) {
      answerBadEncoding(req, res);
      return;
    }
    logger.error({ event: "router_error", path: req.path, error: (error as Error)?.message }, "unexpected error in the oral-assessments router");
    if (req.path.startsWith("/launch/")) sendLastResortPage(res, req.originalUrl);
    else sendProblem(res, { status: 500, code: "internal_error", title: "Internal error", detail: "The request could not be completed. It has been logged." });
  };
  /** The client's mistake: a 400 (an HTML page on the browser's launch route), logged at debug. */
  function answerBadEncoding(req: Request, res: Response): void {
    const params = undecodableParams(req);
    logger.debug({ event: "bad_percent_encoding", params }, "a path parameter is not valid percent-encoding");
    if (req.path.toLowerCase().startsWith("/launch/")) {
      sendPage(res, { status: 400, title: "This exam link is not valid", message: "The link is damaged. Open it again from your course page." });
      return;
    }
    sendProblem(res, invalidInput(params.map((path) => ({ path, message: "is not valid percent-encoding" }))));
  }
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
    await coordinator?.close();
    preparer.close();
    if (!settings.fleet) await fleet.close(); // a fleet the app passed is the app's to close
    await store.close();
  };
  router.prepare = (examId, input) => preparation.prepare(examId, input);
  router.preparation = (examId) => preparation.progress(examId);
  router.sharedPreparation = (examId) => preparation.sharedProgress(examId);
  return router;
}
