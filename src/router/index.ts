/**
 * `oralAssessments(options)`: the Express plugin. Mount it at any path of an Express 4
 * or 5 app: `app.use("/oral", oralAssessments({ platform, examHost, … }))`.
 *
 * Composition only: options become per-feature settings (`settings.ts`), and each
 * feature folder (`launch/`, `prepare/`, `instructor/`) gets its own settings and the
 * shared objects it needs (platform client, store, exam directory, logger).
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from "express";
import { expressPath, INSTRUCTOR_PREFIXES, ROUTES } from "../api/routes.js";
import { onlyUnder } from "./shared/only-under.js";
import { sqliteStore } from "../store/sqlite.js";
import { tracedStore } from "../store/traced-store.js";
import { launchSpan } from "./launch/launch-span.js";
import type { ExamKind } from "../store/types.js";
import type { LtiStore } from "../store/lti-types.js";
import { inProcessFleet } from "../fleet/fleet.js";
import { openApiRoute } from "./meta/openapi-route.js";
import { sendLastResortPage } from "./launch/pages.js";
import { answerSignedOut } from "./launch/admission.js";
import { answerSpeculative, isSpeculative } from "./launch/speculative.js";
import { ltiMount } from "./lti-mount.js";
import { programmaticScores, scoresRoute } from "./gradebook-scores.js";
import { idempotentPost } from "./instructor/idempotency.js";
import type { PostScoreInput } from "./post-score-input.js";
import type { Gradebook } from "../lti/gradebook/gradebook.js";
import type { OpenExam } from "../lti/launch/open-link.js";
import type { OralAssessmentsOptions } from "./shared/options.js";
import type { PrepareProgress } from "./prepare/plan.js";
import type { PrepareInput } from "./prepare/preparation.js";
import { prepareBodyLimit } from "./prepare/routes.js";
import { LaunchRecorder } from "./records/recorder.js";
import { LiveStreamLimits } from "./records/live-limits.js";
import { ExportLimits } from "./records/export-limits.js";
import { resolveRouterOptions } from "./settings.js";
import { startUpCheck } from "./store-check.js";
import { bodyParseErrors, jsonBody } from "./shared/body.js";
import { chain } from "./shared/chain.js";
import { instructorGuards } from "./shared/guards.js";
import { pageSettings, sendPage } from "./shared/html.js";
import { invalidInput, sendProblem } from "./shared/problem.js";
import { isBadEncoding, undecodableParams } from "./shared/bad-encoding.js";
import { Organizations } from "./organization/organizations.js";
import { foundOrganization, organizationStep } from "./organization/middleware.js";
import { organizationScope, PREPARE_PREFIX, type OrganizationScope } from "./scope.js";
import { programmaticPreparation } from "./organization/programmatic.js";
import type { OrganizationInfo } from "./shared/organization-info.js";

export type {
  LaunchContext, OralAssessmentsOptions, PrepareOptions, PrewarmOptions, StudentIdentity,
  RenderPage, RouterPage, RouterPageKind, RouterPageLink,
} from "./shared/options.js";
export { PrepareError, type PrepareInput } from "./prepare/preparation.js";
export type { PrepareProgress } from "./prepare/plan.js";

export interface OralAssessmentsRouter extends Router {
  /**
   * The start-up check, begun when the router is made: resolves once the store is open
   * (connected, schema created or migrated); rejects with a `ConfigurationError` naming
   * `store` and its fix if it cannot be (also logged). Await it before `app.listen` to stop
   * at start-up; called again after a failure, it tries again.
   */
  ready(): Promise<void>;
  /** Closes the store the router uses, and stops pre-warming and waiting launches. */
  close(): Promise<void>;
  /**
   * Pre-warms sign-in tokens for an exam's roster before `startAt` (what
   * `POST /oral-assessments/:examId/prepare` does). Replaces an earlier plan for the
   * exam, keeping its usable tokens. Rejects with a `PrepareError` (400 or 404 semantics).
   *
   * With the `organization` resolver, say whose exam it is as the resolver would:
   * `prepare(examId, { startAt, organization: { id, apiKey, baseUrl, examHost } })`. The
   * plan then runs on that organization's client and budget, and its tokens go only to
   * that organization's launches; a missing or unusable `organization` is a 400
   * `PrepareError` naming it (never showing the key). A single-organization router takes
   * no `organization`.
   */
  prepare(examId: string, input: PrepareInput): Promise<PrepareProgress>;
  /**
   * The exam's pre-warming progress; undefined when it was never prepared. With the
   * `organization` resolver, name the organization (its id, or the object given to
   * `prepare`); one this instance does not hold has no plan here (undefined).
   */
  preparation(examId: string, organization?: string | OrganizationInfo): PrepareProgress | undefined;
  /**
   * The exam's pre-warming progress as the fleet sees it: in fleet mode the plan's leader's
   * (whichever instance runs it), readable on every instance that holds the organization;
   * in process, `preparation`. `organization` as for `preparation`.
   */
  sharedPreparation(examId: string, organization?: string | OrganizationInfo): Promise<PrepareProgress | undefined>;
  /** The LMS side (`lti`). */
  lti: {
    /**
     * Grades to the LMS gradebook (LTI AGS) for learners who opened the exam from an LMS,
     * as `POST /oral-assessments/:examId/scores` does: queued in the store's outbox and
     * posted with retries. `router.lti.postScore({ examId, scores: [{ student, scoreGiven,
     * comment }] })`; `organization` with many organizations. Resolves to how many scores
     * were queued per student; rejects with a TypeError naming the field on bad input (an
     * unknown student too), queuing nothing.
     */
    postScore(input: PostScoreInput): Promise<{ student: string; queued: number }[]>;
  };
}

/**
 * A layer that hands requests to the organization's own routes, listing what they serve
 * (as a route-table layer does), so the router's routes can be read off its stack.
 */
function served(feature: "prepare" | "instructor", handler: RequestHandler): RequestHandler & { routes: string[] } {
  const routes = ROUTES.filter((r) => r.feature === feature).map((r) => `${r.method.toUpperCase()} ${expressPath(r.path)}`);
  return Object.assign(handler, { routes });
}

export function oralAssessments(options: OralAssessmentsOptions): OralAssessmentsRouter {
  const settings = resolveRouterOptions(options);
  const { logger } = settings;
  // A plain store: every store method opens it on first use (and retries a failed
  // opening); `router.ready()` below opens it at once, to tell a store that cannot be opened at start-up.
  // Each store call in a span (a no-op until the app installs an OpenTelemetry SDK).
  const store = tracedStore(settings.store ?? sqliteStore());
  // LTI's tables: in `lti.store` when given (opened and closed with the router), else in the
  // router's store, which then has the LTI methods (settings.ts checked it; the default has).
  const ownLtiStore = settings.ltiStore && (settings.ltiStore as object) !== settings.store ? tracedStore(settings.ltiStore) : undefined;
  const ltiStore = settings.lti ? (ownLtiStore ?? (store as unknown as LtiStore)) : undefined;

  const router = express.Router() as OralAssessmentsRouter;
  // One code path: the router talks to the fleet's stores, in process (the default, one
  // instance) or shared (redisFleet); the modes differ only in the implementation.
  const fleet = settings.fleet ?? inProcessFleet({ launchLimit: settings.launchLimit, circuitBreaker: settings.circuitBreaker });
  // One code path for one organization and for many: a single `platform` is a resolver
  // with a constant answer. Each organization gets its own scope (organization/scope.ts).
  // One recorder for every organization: one buffer, one writer, one purge.
  const recorder = settings.launchRecord && new LaunchRecorder(store, settings.launchRecord, logger);
  // One count of open live streams for every organization (the per-router cap).
  const liveLimits = new LiveStreamLimits(settings.live);
  // And of open launch-record exports.
  const exportLimits = new ExportLimits(settings.launchExports);
  const organizations = new Organizations<OrganizationScope>(settings.organizations, () => fleet.rateBudget, logger, {
    make: (org) => organizationScope({ org, store, ltiStore, fleet, settings, logger, recorder, liveLimits, exportLimits }),
    busy: (scope) => scope.busy(),
    close: (scope) => scope.close(),
    clientChanged: (scope) => scope.clientChanged(),
  });
  const scope = (res: Response) => foundOrganization<OrganizationScope>(res).scope;
  const asPage = organizationStep(organizations, "page");
  const asProblem = organizationStep(organizations, "problem");

  // Before any route: every HTML page of this router gets its homeUrl and layout.
  router.use(pageSettings(settings.pages));
  // First: the launch route is the hot path of an exam-day storm, and matches nothing else.
  // The role-play launch before `/launch/:examId`, which would take "roleplay" for an exam id.
  // Before the organization: a HEAD or a prefetch is answered doing nothing, and a
  // signed-out student goes to the login page, whatever organization the resolver would
  // (not) find for nobody.
  const signedInFirst = (kind: ExamKind): RequestHandler => (req, res, next) => {
    if (isSpeculative(req)) {
      const answer = answerSpeculative(req, res);
      logger.debug({ event: "launch", outcome: answer.outcome, status: answer.status, kind, method: req.method }, `launch ${answer.outcome}`);
    } else if (answerSignedOut(settings.launch, req, res, kind) === undefined) next();
  };
  // Each as one layer (chain.ts): four route layers cost a storm a dispatch each per launch.
  router.get("/launch/roleplay/:roleplayId", chain([launchSpan("/launch/roleplay/:roleplayId"), signedInFirst("roleplay"), asPage, (req, res, next) => scope(res).launchRoleplay(req, res, next)]));
  router.get("/launch/:examId", chain([launchSpan("/launch/:examId"), signedInFirst("oral"), asPage, (req, res, next) => scope(res).launchOral(req, res, next)]));
  // The LMS's way in (LTI 1.3): its own paths under /lti/, the same launch behind them,
  // for the organization the link was made for.
  let gradebook: Gradebook | undefined;
  if (settings.lti) {
    // The organization's launch, for the organization the link was made for (else the 404 page).
    const openLinked = (kind: "ltiOral" | "ltiRoleplay"): OpenExam => (req, res, next, link) => asPage(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) return next(error);
      if (link.organization === undefined || link.organization === foundOrganization(res).id) scope(res)[kind](req, res, next, link);
      else sendPage(res, { status: 404, title: "Exam not found", message: "This exam link was made for another school. Open it again from your course page." });
    });
    // The organization is found before an exam link is taken (a link followed under the wrong school stays usable).
    router.get(["/lti/open/roleplay/:roleplayId/:linkId", "/lti/open/:examId/:linkId"], asPage);
    const mounted = ltiMount({
      lti: settings.lti, launch: settings.launch, logger, fleet, store, ltiStore: ltiStore!,
      openExam: { oral: openLinked("ltiOral"), roleplay: openLinked("ltiRoleplay") },
      organizationIdFor: async (req) => (await organizations.of(req))?.id,
      platformOf: async (req, id) => {
        const org = await organizations.of(req);
        return org?.id === id ? org.platform : undefined;
      },
      preparationOf: async (req, id) => {
        const org = await organizations.of(req);
        return org?.id === id ? { preparation: org.scope.preparation, platform: org.platform } : undefined;
      },
      prepare: settings.prepare,
    });
    gradebook = mounted.gradebook;
    router.use(mounted);
  }
  // Before the generic instructor middleware: a roster needs its own body limit. The
  // guards answer before the organization is looked up (401/403 first, as everywhere).
  // Entered only by its own prefix: every other instructor request skips it.
  const guards = instructorGuards(settings.guards);
  router.use(served("prepare", onlyUnder(PREPARE_PREFIX, chain([...guards, jsonBody(prepareBodyLimit(settings.prepare)), asProblem, (req, res, next) => scope(res).prepare(req, res, next)]))));
  // Guards, body parser and organization as one layer: they always run together (see chain.ts).
  router.use([...INSTRUCTOR_PREFIXES], chain([...guards, jsonBody(settings.instructor.bodyLimit), asProblem]));
  // Grades to the LMS gradebook: instructor only, behind the same guards, body parser and organization.
  router.use(scoresRoute(() => gradebook, idempotentPost(store, (req) => foundOrganization(req.res!).id, logger)));
  router.use(served("instructor", (req, res, next) => (res.locals.oralAssessmentsOrganization ? scope(res).instructor(req, res, next) : next())));

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

  // Checked now, once (store-check.ts): a store that cannot be opened is told at start-up, with its fix.
  router.ready = startUpCheck(async () => {
    await store.init();
    await ownLtiStore?.init();
    // The score outbox starts once the store is open: scores a previous run left are posted now.
    gradebook?.start();
  }, logger);
  router.close = async () => {
    await gradebook?.close();
    await organizations.close();
    await recorder?.close();
    if (!settings.fleet) await fleet.close(); // a fleet the app passed is the app's to close
    // The twin on the fleet's budget is ours; the app's client is the app's.
    if (settings.organizations.kind === "single" && settings.organizations.platform !== options.platform) settings.organizations.platform.close();
    await store.close();
    await ownLtiStore?.close();
  };
  // The programmatic pre-warming: for the single organization, or the one the caller names.
  const programmatic = programmaticPreparation(organizations);
  router.prepare = programmatic.prepare;
  router.preparation = programmatic.preparation;
  router.sharedPreparation = programmatic.sharedPreparation;
  router.lti = { postScore: programmaticScores(() => gradebook) };
  return router;
}
