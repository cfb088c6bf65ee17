/**
 * The router as an LTI 1.3 tool (`lti` option): the LTI routes (src/lti/) with the
 * router's own launch plugged in. An LTI learner's exam link runs the same launch as
 * `GET /launch/:examId` (prepared tokens, fair share, waiting page, coalescing, fleet);
 * only where the student comes from differs: the verified LTI launch stored with the
 * link, handed to the launch as an argument (`ltiLaunchRoute`), instead of `req.user`.
 * `canLaunch` (the app's roster check) is asked as for any launch, its context saying
 * `via: "lti"` with the verified claims kept with the link (typed-launch.ts), so a
 * roster check applies to every door; `loginUrl` never applies.
 *
 * Organizations: the link carries what `lti.organizationFor` answered for the launch's
 * deployment (`LinkLaunch.organization`). The router's organization step runs as
 * for any launch (with `organization`, the resolver is asked for `<mount>/lti/` requests too); an
 * organization other than the link's is refused with the 404 page.
 */
import type { Request } from "express";
import type { Logger } from "../core/logger.js";
import type { OpenExam } from "../lti/launch/open-link.js";
import { ltiRoutes } from "../lti/routes.js";
import { createServiceAccess } from "../lti/lms/service-access.js";
import { fleetTokenShare } from "../lti/lms/service-token-share.js";
import type { LtiSettings } from "../lti/settings/settings.js";
import type { Fleet } from "../fleet/fleet.js";
import type { OralStore } from "../store/types.js";
import type { LtiStore } from "../store/lti-types.js";
import type { PlatformClient } from "../platform/types.js";
import { PrepareError, type Preparation } from "./prepare/preparation.js";
import type { PrepareSettings } from "./prepare/settings.js";
import type { LaunchSettings } from "./launch/settings.js";
import { ltiCatalog } from "./lti-catalog.js";
import type { PlatformOf } from "./lti-platform-exams.js";

/** A followed link's waiting page may refresh this long past the launch's longest wait. */
const FOLLOWED_MARGIN_MS = 60_000;

export interface LtiMountInput {
  lti: LtiSettings;
  launch: LaunchSettings;
  logger: Logger;
  fleet: Fleet;
  store: OralStore;
  /** Where LTI keeps registrations, course links, line items and scores (`lti.store`, or the router's store). */
  ltiStore: LtiStore;
  /** The organization's LTI launches (see scope.ts), found per request, each handed the link's launch. */
  openExam: Record<"oral" | "roleplay", OpenExam>;
  /** The request's organization id by the router's resolver (undefined: none). */
  organizationIdFor: (req: Request) => Promise<string | undefined>;
  /** The organization's client, when the request acts for that organization (the picker's new class, a course copy). */
  platformOf: PlatformOf;
  /** The organization's preparation and client, when the request acts for that organization (*Prepare this exam for the course*). */
  preparationOf: (req: Request, organization: string) => Promise<{ preparation: Preparation; platform: PlatformClient } | undefined>;
  prepare: PrepareSettings;
}

export function ltiMount({ lti, launch, logger, fleet, store, ltiStore, openExam, organizationIdFor, platformOf, preparationOf, prepare }: LtiMountInput): ReturnType<typeof ltiRoutes> {
  return ltiRoutes(lti, {
    catalog: ltiCatalog(store, organizationIdFor, platformOf),
    singleUse: fleet.singleUse,
    sealingKeys: (purpose) => fleet.sealingKeys(purpose),
    limiter: fleet.limiter,
    breaker: fleet.breaker,
    logger,
    openExam,
    followedTtlMs: launch.launchWaitMs + FOLLOWED_MARGIN_MS,
    registrationStore: ltiStore,
    launchRecords: store,
    // One per router: its token cache and single flight span every LTI route (fleet-wide with a Redis fleet).
    serviceAccess: createServiceAccess({
      keys: lti.keys, logger, shared: fleetTokenShare(fleet, lti.roster.requestTimeoutMs + 5_000), timeoutMs: lti.roster.requestTimeoutMs,
      allowLoopbackHttp: lti.allowLoopbackHttp, ...(lti.userAgent ? { userAgent: lti.userAgent } : {}),
    }),
    lineItemLease: { lead: (key) => fleet.planLeases.lead(key, fleet.instanceId), resign: (key) => fleet.planLeases.resign(key, fleet.instanceId) },
    // The roster goes into the organization's own `prepare`: the same plan, progress and fleet lease as the instructor API's.
    preparerFor: async (req, org) => {
      const found = await preparationOf(req, org);
      if (!found) return undefined;
      return {
        prepare: async (examId, input) => {
          try {
            return await found.preparation.prepare(org, examId, input, req);
          } catch (error) {
            if (error instanceof PrepareError) return { refused: error.message };
            throw error;
          }
        },
        progress: (examId) => found.preparation.sharedProgress(examId),
        ratePerMinute: Math.round(60_000 / found.platform.pacingIntervalMs(1)),
        tokenLifeMs: prepare.tokenTtlMs,
        budgetShare: prepare.budgetShare,
        maxRoster: prepare.maxRoster,
      };
    },
    canLaunch: launch.canLaunch && ((req, ctx) => launch.canLaunch!(req, ctx)),
  });
}
