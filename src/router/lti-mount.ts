/**
 * The router as an LTI 1.3 tool (`lti` option): the LTI routes (src/lti/) with the
 * router's own launch plugged in. An LTI learner's exam link runs the same launch as
 * `GET /launch/:examId` (prepared tokens, fair share, waiting page, coalescing, fleet);
 * only where the student comes from differs: the verified LTI launch stored with the
 * link, instead of `req.user`. The LMS enrolled the student in the course that holds the
 * link, so `canLaunch` (the app's roster check) is not asked; `loginUrl` never applies.
 *
 * Organizations: the link carries what `lti.organizationFor` answered for the launch's
 * deployment (`ltiLaunchOf(req).organization`); with one platform it is undefined and
 * the router's platform serves the launch.
 */
import type { Router } from "express";
import { ltiLaunchOf } from "../lti/open-link.js";
import { ltiRoutes } from "../lti/routes.js";
import type { LtiSettings } from "../lti/settings.js";
import type { Fleet } from "../fleet/fleet.js";
import { launchRoute, type LaunchDeps } from "./launch/route.js";
import type { LaunchSettings } from "./launch/settings.js";
import { EXAM_ID_PATTERN } from "./shared/exam-directory.js";

/** A followed link's waiting page may refresh this long past the launch's longest wait. */
const FOLLOWED_MARGIN_MS = 60_000;

export function ltiMount(lti: LtiSettings, launch: LaunchSettings, deps: LaunchDeps, fleet: Fleet): Router {
  const fromLink: LaunchSettings = {
    ...launch,
    student: (req) => ltiLaunchOf(req)?.student,
    canLaunch: undefined,
    loginUrl: undefined,
    signedIn: (req) => ltiLaunchOf(req) !== undefined,
    launchHref: (req) => `${req.baseUrl}${req.path}`,
  };
  return ltiRoutes(lti, {
    singleUse: fleet.singleUse,
    logger: deps.logger,
    openExam: { oral: launchRoute(fromLink, deps), roleplay: launchRoute(fromLink, deps, "roleplay") },
    followedTtlMs: launch.launchWaitMs + FOLLOWED_MARGIN_MS,
    examIdPattern: EXAM_ID_PATTERN,
  });
}
