/**
 * One student's entry of a pre-warm plan, outside the preparer's loop: when it next
 * needs a platform call, and how it lines up with what the fleet knows of it (a new
 * leader's takeover, launches seen by other instances). Also the shapes the preparer
 * shares with the fleet coordinator. Split from preparer.ts, unchanged.
 */
import type { StudentIdentity } from "../../platform/schemas.js";
import type { PreparationPlan, PreparedEntry } from "./plan.js";

export interface PreparerInput {
  examId: string;
  classId: string;
  courseId: string | undefined;
  /** ms since epoch. */
  startAt: number;
  roster: StudentIdentity[];
}

/** What a fleet coordinator hears from the preparer (undefined in process). */
export interface PlanFleetHooks {
  /** A token was stored in the fleet's prepared tokens, usable until `usableUntil`. */
  stored(examId: string, userKey: string, usableUntil: number): void;
  /** A sign-in token request for the plan is about to be sent. */
  called(examId: string): void;
  /** A student launched: their prepared token was handed out, or they got one on demand. */
  taken(examId: string, userKey: string, outcome: "handedOut" | "onDemand"): void;
}

/** A lease holder's view of one student, read back from the fleet on takeover. */
export interface FleetEntryState {
  /** The prepared token is still in the fleet, usable until then (ms). */
  usableUntil?: number;
  taken?: "handedOut" | "onDemand";
}

/** When this entry next needs a platform call (Infinity: never, as things stand). */
export function dueAt(plan: PreparationPlan, entry: PreparedEntry, now: number, usableLifeMs: number): number {
  if (entry.inFlight || entry.noMoreCalls || now >= plan.keepUntil) return Infinity;
  if (entry.state === "waiting") return Math.max(plan.issueFrom, entry.nextTryAt);
  if (entry.state !== "ready") return Infinity;
  // A token good past keepUntil needs no refresh.
  if (entry.usableUntil >= plan.keepUntil) return Infinity;
  const refreshAhead = Math.min(60_000, usableLifeMs / 4);
  return Math.max(entry.usableUntil - refreshAhead, entry.nextTryAt);
}

/** Lines the entry up with the fleet's view of the student. */
export function alignEntry(entry: PreparedEntry, state: FleetEntryState | undefined): void {
  if (entry.state === "handedOut" || state?.taken === "handedOut") entry.state = "handedOut";
  else if (state?.taken === "onDemand" && entry.state !== "failed") entry.state = "onDemand";
  else if (entry.state === "onDemand" || entry.state === "failed") return;
  else if (state?.usableUntil !== undefined) entry.hold(state.usableUntil);
  else if (entry.state === "ready") entry.state = "waiting";
}
