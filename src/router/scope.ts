/**
 * Everything the router keeps for one organization: its launch routes, its instructor API
 * (with its list caches and idempotency records), its pre-warming, its exam directory and
 * its launch attempts, all on the organization's own client, the store scoped to it and
 * the fleet's state scoped to it (scoped-fleet.ts). Built when the organization is first
 * seen and cached beside its client, so one code path serves a single organization (built
 * once, never evicted) and a thousand (built on demand, closed when idle).
 */
import type { RequestHandler } from "express";
import { routeOf } from "../api/routes.js";
import type { Logger } from "../core/logger.js";
import { breakerScope } from "../fleet/circuit-breaker.js";
import type { Fleet } from "../fleet/fleet.js";
import { platformBreaker, type PlatformBreaker } from "../fleet/platform-breaker.js";
import { scopeFleet } from "../fleet/scoped-fleet.js";
import type { PlatformClient } from "../platform/types.js";
import type { OralStore } from "../store/types.js";
import type { OralStoreLtiGradebook } from "../store/lti-gradebook-types.js";
import { idempotentPost } from "./instructor/idempotency.js";
import { instructorRoutes } from "./instructor/routes.js";
import { LaunchAttempts } from "./launch/attempts.js";
import { launchRoute, ltiLaunchRoute, type LinkedLaunchRoute } from "./launch/route.js";
import { PlanCoordinator } from "./prepare/coordinator.js";
import { createPreparation, type Preparation } from "./prepare/preparation.js";
import { TokenPreparer } from "./prepare/preparer.js";
import { prepareRoutes } from "./prepare/routes.js";
import type { RouterSettings } from "./settings.js";
import { ExamDirectory } from "./shared/exam-directory.js";
import type { OrganizationIdOf } from "./shared/request-organization.js";
import type { LaunchRecorder } from "./records/recorder.js";
import { platformAnswers } from "./records/platform-answers.js";
import { liveView } from "./records/live.js";
import type { LiveStreamLimits } from "./records/live-limits.js";
import type { ExportLimits } from "./records/export-limits.js";
import { scopeMetrics } from "./metrics/scope-metrics.js";

/** What an organization's requests run on. */
export interface OrganizationScope {
  readonly launchOral: RequestHandler;
  readonly launchRoleplay: RequestHandler;
  /** An LTI exam link's launch: the same launch, handed the student of the verified LMS launch. */
  readonly ltiOral: LinkedLaunchRoute;
  readonly ltiRoleplay: LinkedLaunchRoute;
  /** The pre-warming routes (behind the instructor guards and the roster's body limit). */
  readonly prepare: RequestHandler;
  /** The rest of the instructor API (behind the guards and the body parser). */
  readonly instructor: RequestHandler;
  readonly preparation: Preparation;
  /** True while a pre-warm plan is kept: the scope must not be closed for being idle. */
  busy(): boolean;
  /** The organization's client changed (a rotated key). */
  clientChanged(): void;
  close(): Promise<void>;
}

export interface ScopeInput {
  /** Live: its `platform` and `examHost` follow the resolver's latest answer (a rotated key, a moved exam host). */
  org: { readonly id: string; readonly platform: PlatformClient; readonly examHost: string | undefined };
  /** The store, scoped to this organization. */
  store: OralStore;
  /** With LTI: the LTI store, whose score outbox the launch records show. */
  ltiStore?: OralStoreLtiGradebook | undefined;
  fleet: Fleet;
  settings: RouterSettings;
  logger: Logger;
  /** The router's launch recorder (one for every organization); undefined with `launchRecord: false`. */
  recorder?: LaunchRecorder | undefined;
  /** The router's caps on the live view's open streams (every organization). */
  liveLimits: LiveStreamLimits;
  /** The router's caps on open launch-record exports (every organization). */
  exportLimits: ExportLimits;
}

const SIGN_IN = "students/sign-in-token";

export function organizationScope({ org, store, ltiStore, fleet: shared, settings, logger, recorder, liveLimits, exportLimits }: ScopeInput): OrganizationScope {
  const { id: organization, platform } = org;
  const launch = { ...settings.launch };
  Object.defineProperty(launch, "examHost", { get: () => org.examHost, enumerable: true });
  const fleet: Fleet = { ...shared, ...scopeFleet(shared, organization) };
  // Every store call, idempotency key and directory answer of this scope is the organization's.
  const organizationIdOf: OrganizationIdOf = () => organization;
  const directory = new ExamDirectory(store, settings.resolveClassId);
  const attempts = new LaunchAttempts(fleet.attempts, {
    // A pending launch nobody asked about for this long is abandoned: well above the gap
    // between a waiting page and its refresh (one hold plus a page load).
    abandonMs: Math.max(15_000, 4 * launch.waitingPageAfterMs),
    leaseMs: fleet.attemptLeaseMs,
    onIssued: ({ examId, userKey }) => void fleet.launchLimiter.record(examId, userKey).catch(() => undefined),
  });
  // One breaker for the sign-in endpoint of this organization's current key, whoever calls it (launches, pre-warming).
  const signInBreaker = currentKeyBreaker(platform, (keyHash) => platformBreaker(fleet.breaker, breakerScope({ organization, keyHash, endpoint: SIGN_IN }), SIGN_IN, logger));
  const preparer = new TokenPreparer(platform, settings.prepare, logger, fleet.preparedTokens, signInBreaker);
  // Fleet mode: one instance runs each plan (a lease), whichever received `prepare`.
  const coordinator = fleet.kind === "redis" ? new PlanCoordinator(fleet, preparer, logger) : undefined;
  const preparation = createPreparation(settings.prepare, directory, preparer, coordinator);
  const idempotent = idempotentPost(store, organizationIdOf, logger);

  // Fleet mode records which instance answered; one instance has nothing to tell apart.
  const instance = fleet.kind === "redis" ? fleet.instanceId : undefined;
  // The snapshot is read when Prometheus scrapes; a launch only bumps a counter.
  const metrics = settings.metrics && scopeMetrics(settings.metrics, {
    organization, platform,
    snapshot: () => {
      const stats = platform.rateStats();
      return { waiting: attempts.pendingCount, budgetUsed: stats.sentInWindow, budgetLimit: stats.limit, plans: preparer.plansProgress() };
    },
  });
  const launchDeps = {
    platform, logger, directory, organizationIdOf, attempts, preparer, launchLimiter: fleet.launchLimiter, breaker: signInBreaker, recorder, instance,
    countLaunch: metrics?.countLaunch,
  };
  const answers = platformAnswers(platform, fleet.recentCounts, organization);
  const live = liveView({ store, recorder, organizationIdOf, platform, preparation, answers, limits: liveLimits });
  const instructor = instructorRoutes({ ...settings.instructor, knownRecordsOnly: settings.organizations.kind === "resolver", gradebookStore: ltiStore }, platform, store, organizationIdOf, logger, () => directory.forget(), recorder, live.handler, exportLimits);
  return {
    launchOral: launchRoute(launch, launchDeps),
    launchRoleplay: launchRoute(launch, launchDeps, "roleplay"),
    ltiOral: ltiLaunchRoute(launch, launchDeps),
    ltiRoleplay: ltiLaunchRoute(launch, launchDeps, "roleplay"),
    prepare: prepareRoutes(preparation, idempotent, organizationIdOf),
    instructor,
    preparation,
    // An open live stream keeps its organization too: closing it would end the stream.
    busy: () => preparer.planCount > 0 || live.streams > 0,
    clientChanged: () => {
      metrics?.rewire();
      answers.rewire();
    },
    async close() {
      live.close();
      metrics?.close();
      answers.close();
      attempts.close();
      await coordinator?.close();
      preparer.close();
    },
  };
}

/**
 * A breaker that follows the client's current key: `platform` is the organization's live
 * client, so after a rotation the next call is counted under the new key's scope, and the
 * old key's open breaker (its 401s, say) no longer refuses anyone.
 */
function currentKeyBreaker(platform: PlatformClient, make: (keyHash: string) => PlatformBreaker): PlatformBreaker {
  let keyHash = platform.keyId;
  let breaker = make(keyHash);
  const current = (): PlatformBreaker => {
    if (platform.keyId !== keyHash) {
      keyHash = platform.keyId;
      breaker = make(keyHash);
    }
    return breaker;
  };
  return {
    run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> { return current().run(call, signal); },
    view: () => current().view(),
  };
}

/** The first segment of the pre-warming routes, with its slash: `/oral-assessments/`. */
export const PREPARE_PREFIX = `/${routeOf("prepareExam").path.split("/")[1]}/`;
