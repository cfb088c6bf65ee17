/**
 * One organization's view of the fleet's shared state: launch attempts, prepared tokens,
 * pre-warm plans and the per-student launch limit, each keyed by a *scoped exam key*, so
 * an exam id, a wait id or a plan of one organization means nothing under another,
 * whatever the platform's ids look like.
 *
 * The default organization (a single-organization router) keeps the bare exam id: the keys
 * an upgraded fleet already holds stay valid. Every other organization's key is
 * `@<organization>/<examId>`: an organization id is 1–64 of `[A-Za-z0-9_.-]` and a platform
 * id never starts with `@`, so two organizations (or one and the default) never share one.
 * Redis keys inherit their TTLs from the stores: nothing per organization lives forever.
 */
import { DEFAULT_ORGANIZATION } from "../store/types.js";
import type { Fleet } from "./fleet.js";
import type { LaunchAttemptStore } from "./launch-attempts.js";
import type { LaunchLimiter } from "./launch-limiter.js";
import type { PlanLeaseStore } from "./plan-lease.js";
import type { PreparedTokenStore } from "./prepared-tokens.js";

/** The parts of a fleet that hold state per exam. */
export type ScopedFleetParts = Pick<Fleet, "attempts" | "preparedTokens" | "planLeases" | "launchLimiter">;

const SCOPED = "@";

/** The key an organization's exam has in the fleet. */
export function scopedExamKey(organization: string, examId: string): string {
  return organization === DEFAULT_ORGANIZATION ? examId : `${SCOPED}${organization}/${examId}`;
}

export function scopeFleet(fleet: ScopedFleetParts, organization: string): ScopedFleetParts {
  const key = (examId: string) => scopedExamKey(organization, examId);
  const prefix = `${SCOPED}${organization}/`;
  const attempts: LaunchAttemptStore = {
    get shared() { return fleet.attempts.shared; },
    get backSince() { return fleet.attempts.backSince; },
    adopt: (waitId, examId, userKey, lease) => fleet.attempts.adopt(waitId, key(examId), userKey, lease),
    begin: (examId, userKey) => fleet.attempts.begin(key(examId), userKey),
    renew: (waitId, lease) => fleet.attempts.renew(waitId, lease),
    complete: (waitId, lease, outcome) => fleet.attempts.complete(waitId, lease, outcome),
    view: (waitId, examId, userKey) => fleet.attempts.view(waitId, key(examId), userKey),
    takeOver: (waitId, examId, userKey) => fleet.attempts.takeOver(waitId, key(examId), userKey),
    claim: (waitId, examId, userKey) => fleet.attempts.claim(waitId, key(examId), userKey),
  };
  const preparedTokens: PreparedTokenStore = {
    put: (examId, userKey, token, usableUntil, classId) => fleet.preparedTokens.put(key(examId), userKey, token, usableUntil, classId),
    take: (examId, userKey, classId) => fleet.preparedTokens.take(key(examId), userKey, classId),
    has: (examId, userKey) => fleet.preparedTokens.has(key(examId), userKey),
    discard: (examId, userKey) => fleet.preparedTokens.discard(key(examId), userKey),
  };
  const p = fleet.planLeases;
  const planLeases: PlanLeaseStore = {
    lead: (planId, holder) => p.lead(key(planId), holder),
    renew: (planId, holder) => p.renew(key(planId), holder),
    resign: (planId, holder) => p.resign(key(planId), holder),
    leader: (planId) => p.leader(key(planId)),
    count: (planId, deltas) => p.count(key(planId), deltas),
    record: (planId, fields) => p.record(key(planId), fields),
    progress: (planId) => p.progress(key(planId)),
    markStored: (planId, userKey, usableUntil) => p.markStored(key(planId), userKey, usableUntil),
    markTaken: (planId, userKey, how) => p.markTaken(key(planId), userKey, how),
    marks: (planId, userKeys, only) => p.marks(key(planId), userKeys, only),
    publish: (planId, input, untilMs) => p.publish(key(planId), input, untilMs),
    published: (planId) => p.published(key(planId)),
    // Only this organization's plans, by their own ids: a coordinator never sees another's.
    activePlans: async () => {
      const all = await p.activePlans();
      if (organization === DEFAULT_ORGANIZATION) return all.filter((id) => !id.startsWith(SCOPED));
      return all.filter((id) => id.startsWith(prefix)).map((id) => id.slice(prefix.length));
    },
  };
  const launchLimiter: LaunchLimiter = {
    check: (examId, userKey) => fleet.launchLimiter.check(key(examId), userKey),
    record: (examId, userKey) => fleet.launchLimiter.record(key(examId), userKey),
    recordFailure: (examId, userKey, failure) => fleet.launchLimiter.recordFailure(key(examId), userKey, failure),
  };
  return { attempts, preparedTokens, planLeases, launchLimiter };
}
