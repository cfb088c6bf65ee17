/**
 * The LTI 1.3 tool's routes, mounted by the router under its own path when `lti` is set:
 *
 * | `GET /lti/jwks.json` | the tool's public keys |
 * | `GET`/`POST /lti/login` | OIDC login initiation (login.ts) |
 * | `POST /lti/launch` | the LMS's id_token + state (launch.ts) |
 * | `POST /lti/deep-link` | the deep-linking picker's choice (deep-linking.ts) |
 * | `POST /lti/notices` | the LMS's platform notices: a course copy (notices.ts) |
 * | `POST /lti/course` | an instructor's choice in a copied course: copy the exam, or use it (course-offer.ts) |
 * | `GET /lti/register` | LTI Dynamic Registration (dynamic-registration.ts) |
 * | `GET /lti/return` | a learner back from the exam site: `Submitted` to the LMS gradebook (gradebook/gradebook.ts) |
 * | `GET /lti/open/:examId/:linkId`, `/lti/open/roleplay/:roleplayId/:linkId` | a learner's single-use exam link (open-link.ts) |
 * | `POST /lti/prepare`, `GET /lti/prepare/:form` | *Prepare this exam for the course*, its progress (prepare-course.ts) |
 *
 * These are browser routes (HTML pages and form posts from the LMS), not JSON API routes,
 * so they live here rather than in the API route table (`src/api/routes.ts`), which
 * describes the JSON API and drives the OpenAPI document. They answer no CORS header.
 */
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from "express";
import type { Logger } from "../core/logger.js";
import type { Fleet } from "../fleet/fleet.js";
import type { SingleUseStore } from "../fleet/single-use.js";
import type { OralStoreLaunches } from "../store/launch-types.js";
import type { OralStoreLti } from "../store/lti-types.js";
import type { LtiCatalog } from "./placement/catalog.js";
import { courseBinding } from "./placement/course-binding.js";
import { courseChoiceRoute } from "./placement/course-offer.js";
import { deepLinking } from "./placement/deep-linking.js";
import { registerRoute } from "./registration/dynamic-registration.js";
import { launchRoute } from "./launch.js";
import { loginRoute } from "./launch/login.js";
import { NOTICE_PATH, noticeBody, platformNotices } from "./services/notices.js";
import { LoginLimits } from "./options/login-limit.js";
import { LoginStates, MAX_STATE_WAIT_MS } from "./launch/login-state.js";
import { openLinkRoute, type OnFollowed, type OpenExam } from "./launch/open-link.js";
import type { LinkKind } from "./launch/typed-launch.js";
import { prepareCourseRoutes, type PrepareCourseDeps } from "./services/prepare-course.js";
import { createGradebook, type Gradebook } from "./gradebook/gradebook.js";
import { sendLtiPage } from "./shared/pages.js";
import { RegistrationSource, type RegistrationSourceOptions } from "./lms/registration-source.js";
import { RemoteKeySets, type RemoteKeySetOptions } from "./lms/remote-keys.js";
import type { ServiceAccess } from "./lms/service-access.js";
import type { LtiSettings } from "./settings/settings.js";

export interface LtiRouteDeps {
  /** The fleet's single-use store: used nonces, exam links, addresses that launched, seen by every instance. */
  singleUse: SingleUseStore;
  /** The fleet's sealing keys: the login's state, sealed into the `state` parameter, opens on every instance. */
  sealingKeys: Fleet["sealingKeys"];
  /** The fleet's own token buckets: the login's limits, fleet-wide in fleet mode. */
  limiter: Fleet["limiter"];
  /** The fleet's circuit breakers: the gradebook's one per LMS, fleet-wide in fleet mode. */
  breaker: Fleet["breaker"];
  logger: Logger;
  /** The router's launch (`GET /launch/:examId` or the role-play one), with the student taken from the LTI link. */
  openExam: Record<LinkKind, OpenExam>;
  /** How long a followed link's waiting page may refresh, ms (the launch's longest wait and a margin). */
  followedTtlMs: number;
  /** The organization's exams, from the router's store: the picker and the instructor page. */
  catalog: LtiCatalog;
  keySets?: RemoteKeySetOptions;
  /** The router's store: registrations kept there (Dynamic Registration writes them), and course links. */
  registrationStore: OralStoreLti;
  /** The router's launch records, for Submission Review's learner record (undefined: none shown). */
  launchRecords?: OralStoreLaunches;
  registrationCache?: RegistrationSourceOptions;
  /** The LMS's services (NRPS, AGS) with the tool's access tokens: one per router (service-access.ts). */
  serviceAccess: ServiceAccess;
  /** The fleet's lease to make a missing line item (the plan lease store), so a fleet makes one per exam and course. */
  lineItemLease?: { lead(key: string): Promise<boolean>; resign(key: string): Promise<void> };
  /** The organization's preparation, for *Prepare this exam for the course* (undefined: not for this request). */
  preparerFor: PrepareCourseDeps["preparerFor"];
  /** The router's `canLaunch`, asked per roster member. */
  canLaunch: PrepareCourseDeps["canLaunch"];
}

const FORM_LIMIT = "64kb";
/** The launch's form: an id_token of up to 64 KiB (launch.ts refuses a longer one with a page that says so) and its state. */
const LAUNCH_FORM_LIMIT = "256kb";

export function ltiRoutes(settings: LtiSettings, deps: LtiRouteDeps): Router & { gradebook?: Gradebook } {
  const router = express.Router() as Router & { gradebook?: Gradebook };
  const { logger, singleUse } = deps;
  const source = new RegistrationSource(settings.registrations, deps.registrationStore, logger, deps.registrationCache);
  // One live array: refreshed with the store's registrations before each LTI request below.
  const frameAncestors = source.frameAncestors;
  const states = new LoginStates(deps.sealingKeys, singleUse, Math.min(settings.stateTtlMs, MAX_STATE_WAIT_MS));
  // The browser cookie binds a login's state and a followed exam link: it lives as long as the longer.
  const cookieMaxAgeMs = Math.max(states.waitMs, deps.followedTtlMs);
  const limits = new LoginLimits({ limiter: deps.limiter }, singleUse, settings.loginLimit);
  const keySets = new RemoteKeySets({ cooldownMs: settings.keySetCooldownMs, ...deps.keySets });
  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT });
  const safely = (handler: (req: express.Request, res: express.Response) => Promise<void>): RequestHandler =>
    (req, res, next) => void handler(req, res).catch(next);

  router.get("/lti/jwks.json", (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=300");
    res.json(settings.keys.jwks);
  });
  router.get("/lti/register", safely(registerRoute(settings, { source, store: deps.registrationStore, logger })));
  // Every page below carries the LMS origins of the registrations as of at most the cache's
  // age. A store that fails here fails the lookups that need it (a 503 page), not an exam link.
  router.use("/lti/", (_req, _res, next) => void source.current().then(() => next(), () => next()));
  const login = safely(loginRoute(settings, source, states, logger, frameAncestors, { limits, cookieMaxAgeMs }));
  router.get("/lti/login", login);
  router.post("/lti/login", form, login);
  const binding = courseBinding({ settings, store: deps.registrationStore, catalog: deps.catalog, logger, frameAncestors });
  const notices = platformNotices({ settings, source, keySets, access: deps.serviceAccess, store: deps.registrationStore, singleUse, logger });
  router.post(NOTICE_PATH, noticeBody(), safely(notices.route));
  const linking = deepLinking({ settings, catalog: deps.catalog, store: singleUse, binding, logger, frameAncestors, source });
  router.post("/lti/launch", express.urlencoded({ extended: false, limit: LAUNCH_FORM_LIMIT }), safely(launchRoute(settings, { states, limits, source, links: singleUse, keySets, logger, frameAncestors, catalog: deps.catalog, deepLinking: linking, courseBinding: binding, store: deps.registrationStore, launchRecords: deps.launchRecords, notices })));
  router.post("/lti/deep-link", form, safely(linking.choose));
  router.post("/lti/course", form, safely(courseChoiceRoute({ settings, catalog: deps.catalog, binding, offers: singleUse, logger, frameAncestors, source })));
  const preparing = prepareCourseRoutes({ settings, roster: settings.roster, access: deps.serviceAccess, source, forms: singleUse, logger, frameAncestors, preparerFor: deps.preparerFor, canLaunch: deps.canLaunch });
  router.post("/lti/prepare", form, safely(preparing.post));
  router.get("/lti/prepare/:form", safely(preparing.get));
  // The LMS gradebook (AGS): a score when a link reaches the exam, and when the learner comes back.
  const gradebook = settings.gradebook && createGradebook({ settings: settings.gradebook, store: deps.registrationStore, access: deps.serviceAccess, source, keys: settings.keys, logger, reviewUrl: settings.toolUrl && `${settings.toolUrl}/lti/launch`, limiter: deps.limiter, pauses: singleUse, breaker: deps.breaker,
    loopbackHttp: settings.allowLoopbackHttp, ...(deps.lineItemLease ? { lease: deps.lineItemLease } : {}) });
  const followed: OnFollowed | undefined = gradebook && ((req, res, record, linkId) => {
    if (record.gradebook) gradebook.reached(req, res, { linkId, kind: record.kind, examId: record.examId, organization: record.organization, student: record.student, gradebook: record.gradebook });
  });
  if (gradebook) router.gradebook = gradebook;
  router.get("/lti/return", gradebook ? gradebook.returnRoute(frameAncestors) : (_req, res) => sendLtiPage(res, frameAncestors, { status: 200, title: "Thank you", message: "You can close this window and go back to your course." }));
  router.get("/lti/open/roleplay/:roleplayId/:linkId", openLinkRoute("roleplay", singleUse, deps.openExam.roleplay, { followedTtlMs: deps.followedTtlMs, cookieMaxAgeMs }, logger, frameAncestors, followed));
  router.get("/lti/open/:examId/:linkId", openLinkRoute("oral", singleUse, deps.openExam.oral, { followedTtlMs: deps.followedTtlMs, cookieMaxAgeMs }, logger, frameAncestors, followed));

  const failed: ErrorRequestHandler = (error, req, res, next) => {
    if (!req.path.startsWith("/lti/") || res.headersSent) return next(error);
    const status = (error as { type?: string })?.type === "entity.too.large" ? 413 : (error as { status?: number })?.status === 400 ? 400 : 503;
    logger.error({ event: "lti_error", path: req.path, status, error: (error as Error)?.message }, "an LTI request failed");
    sendLtiPage(res, frameAncestors, {
      status, title: status === 503 ? "The launch could not be completed" : "This launch could not be read",
      message: status === 503 ? "The tool could not keep the launch's state just now. Please open the link again in a moment." : "The LMS's request could not be read. Open the link again from your course.",
    });
  };
  router.use(failed);
  return router;
}
