/**
 * Launch attempts and their wait ids, shared so that a waiting page's refresh served by
 * any instance continues the same attempt, and a double click split across instances
 * costs one sign-in call.
 *
 * An attempt exists per (exam, student). `begin` either joins the running attempt or,
 * atomically, makes the caller its owner (it holds the lease and makes the sign-in call).
 * The owner renews its lease while the call is in flight; if the lease lapses (the owner
 * died), the next `begin`/`takeOver` for that attempt becomes the owner: nobody waits
 * forever. The outcome is kept for `outcomeTtlMs`; a token outcome is claimed once.
 *
 * `inProcessLaunchAttempts()` is the zero-configuration default; redis-launch-attempts.ts
 * shares them across a fleet.
 */
import { randomId } from "../core/random-id.js";
import { FLEET_DEFAULTS } from "./options.js";

export type AttemptOutcome =
  | { kind: "token"; token: string }
  | { kind: "failed"; status: number; detail: string };

export interface AttemptTicket {
  waitId: string;
  /** Set when this caller must make the sign-in call: pass it to `renew` and `complete`. */
  lease: string | undefined;
}

export type AttemptView =
  | { state: "running"; leaseLapsed: boolean }
  | { state: "done"; outcome: AttemptOutcome["kind"]; claimed: boolean }
  | { state: "unknown" };

export interface LaunchAttemptStore {
  /**
   * False while the store answers from an instance-local fallback (fleet mode, Redis
   * unreachable): an attempt that is `unknown` then may well exist in Redis. Undefined:
   * the store never falls back (in process).
   */
  readonly shared?: boolean;
  /**
   * When this instance last found Redis again after an outage (ms since epoch, 0: never
   * away); undefined in process. Until the attempts begun or kept in the instances'
   * fallbacks meanwhile are back in Redis, a wait id unknown here may still be running
   * on another instance.
   */
  readonly backSince?: number;
  /** Joins the student's running attempt, or starts one (new, after a claimed/failed one, or taking over a lapsed lease). */
  begin(examId: string, userKey: string): Promise<AttemptTicket>;
  /**
   * Puts back, under its own wait id and the caller's lease, an attempt whose call the
   * caller runs but which this store does not know (lost in a Redis restart, or out of
   * reach in an outage): the student's waiting page, refreshed to that wait id, finds it
   * again instead of starting over. True too, with the lease renewed, when the store still
   * holds it under the caller's lease (kept through an outage). False (nothing changed)
   * when the store knows the wait id otherwise, or the student has an attempt of their own
   * there that is running or holds an unclaimed token: that one goes on instead.
   */
  adopt(waitId: string, examId: string, userKey: string, lease: string): Promise<boolean>;
  /** Extends the owner's lease; false if it is no longer the owner (lapsed and taken over). */
  renew(waitId: string, lease: string): Promise<boolean>;
  /** Stores the outcome; false if `lease` no longer owns the attempt (its outcome is then dropped). */
  complete(waitId: string, lease: string, outcome: AttemptOutcome): Promise<boolean>;
  /** What a refresh sees; `unknown` for a wait id of another student, or one that expired. */
  view(waitId: string, examId: string, userKey: string): Promise<AttemptView>;
  /** Becomes the owner of a running attempt whose lease lapsed; undefined if it did not lapse. */
  takeOver(waitId: string, examId: string, userKey: string): Promise<string | undefined>;
  /**
   * The outcome; a failure every time. A token goes to the claims made within
   * `claimGraceMs` of the first one (atomic read + mark): the requests of one double click
   * or second tab, even split across instances, all redirect with the one token; a claim
   * after that gets nothing (the token was used), and the next launch starts afresh.
   */
  claim(waitId: string, examId: string, userKey: string): Promise<AttemptOutcome | undefined>;
}

export interface AttemptTimings {
  /** Owner lease, ms. */
  leaseMs: number;
  /** How long an outcome (and the attempt) stays readable, ms. */
  outcomeTtlMs: number;
  /** How long after its first claim a token outcome is still given to claims of the same attempt, ms. Default 5 000. */
  claimGraceMs?: number;
}

export const newWaitId = (): string => randomId(18);
export const newLease = (): string => randomId(12);

interface Attempt {
  waitId: string;
  examId: string;
  userKey: string;
  lease: string;
  leaseUntil: number;
  outcome: AttemptOutcome | undefined;
  claimed: boolean;
  claimedAt: number;
  expiresAt: number;
  /** A second request joined it (a double click, a second tab): it is kept readable when replaced (see `begin`). */
  joined: boolean;
  /** Set when a new attempt replaced this settled one: readable by its wait id until then (the claim grace). */
  replacedUntil?: number;
}

export function inProcessLaunchAttempts(timings: AttemptTimings, now: () => number = Date.now): LaunchAttemptStore {
  const byStudent = new Map<string, Attempt>();
  const byWaitId = new Map<string, Attempt>();
  /**
   * Settled records a new attempt replaced while another request had joined them,
   * readable by their wait id for the claim grace (see `begin`). Apart from `byWaitId`
   * because they all live the same short time: in replacement order the oldest is first,
   * so dropping the expired ones is exact.
   */
  const replaced = new Map<string, Attempt>();
  const claimGraceMs = timings.claimGraceMs ?? FLEET_DEFAULTS.claimGraceMs;
  const studentOf = (examId: string, userKey: string): string => `${examId}\u0000${userKey}`;
  const find = (waitId: string, examId: string, userKey: string): Attempt | undefined => {
    const a = byWaitId.get(waitId) ?? replaced.get(waitId);
    if (!a || a.examId !== examId || a.userKey !== userKey) return undefined;
    if (a.expiresAt <= now() || (a.replacedUntil !== undefined && a.replacedUntil < now())) {
      byWaitId.delete(waitId);
      replaced.delete(waitId);
      if (byStudent.get(studentOf(examId, userKey)) === a) byStudent.delete(studentOf(examId, userKey));
      return undefined;
    }
    return a;
  };
  const own = (a: Attempt): string => {
    a.lease = newLease();
    a.leaseUntil = now() + timings.leaseMs;
    a.expiresAt = Math.max(a.expiresAt, now() + timings.outcomeTtlMs);
    return a.lease;
  };
  /** Drops the replaced records past their grace, and a couple of the oldest records when they expired: memory stays bounded by the live attempts, at O(1) per begin (amortised). */
  const sweep = () => {
    for (const a of replaced.values()) {
      if (a.replacedUntil! >= now()) break;
      replaced.delete(a.waitId);
    }
    let looked = 0;
    for (const a of byWaitId.values()) {
      if (looked++ >= 2 || a.expiresAt > now()) break;
      find(a.waitId, a.examId, a.userKey);
    }
  };
  return {
    async begin(examId, userKey) {
      sweep();
      const current = byStudent.get(studentOf(examId, userKey));
      const a = current && find(current.waitId, examId, userKey);
      if (a && !a.outcome) {
        a.joined = true;
        return { waitId: a.waitId, lease: a.leaseUntil <= now() ? own(a) : undefined };
      }
      if (a && a.outcome?.kind === "token" && !a.claimed) {
        a.joined = true;
        return { waitId: a.waitId, lease: undefined };
      }
      // Replaced. A settled record (claimed or failed) that another request joined stays
      // readable by its wait id for the claim grace: that request (a double click) still
      // gets its outcome instead of starting over. Only joined ones: holding every replaced
      // record for seconds cost a third more RSS over 100,000 launches (the memory bench).
      // (The Redis store keeps the one replaced outcome per student in the student's hash.)
      if (current) byWaitId.delete(current.waitId);
      if (a?.outcome && a.joined) {
        a.replacedUntil = now() + claimGraceMs;
        replaced.set(a.waitId, a);
      }
      const fresh: Attempt = { waitId: newWaitId(), examId, userKey, lease: "", leaseUntil: 0, outcome: undefined, claimed: false, claimedAt: 0, expiresAt: 0, joined: false };
      const lease = own(fresh);
      byStudent.set(studentOf(examId, userKey), fresh);
      byWaitId.set(fresh.waitId, fresh);
      return { waitId: fresh.waitId, lease };
    },
    async adopt(waitId, examId, userKey, lease) {
      sweep();
      const known = find(waitId, examId, userKey);
      if (known && !known.outcome && known.lease === lease) {
        known.leaseUntil = now() + timings.leaseMs;
        return true;
      }
      if (known || byWaitId.has(waitId)) return false;
      const current = byStudent.get(studentOf(examId, userKey));
      const a = current && find(current.waitId, examId, userKey);
      if (a && (!a.outcome ? a.leaseUntil > now() : a.outcome.kind === "token" && !a.claimed)) return false;
      if (current) byWaitId.delete(current.waitId);
      const adopted: Attempt = { waitId, examId, userKey, lease, leaseUntil: now() + timings.leaseMs, outcome: undefined, claimed: false, claimedAt: 0, expiresAt: now() + timings.outcomeTtlMs, joined: false };
      byStudent.set(studentOf(examId, userKey), adopted);
      byWaitId.set(waitId, adopted);
      return true;
    },
    async renew(waitId, lease) {
      const a = byWaitId.get(waitId);
      if (!a || a.outcome || a.lease !== lease) return false;
      a.leaseUntil = now() + timings.leaseMs;
      return true;
    },
    async complete(waitId, lease, outcome) {
      const a = byWaitId.get(waitId);
      if (!a || a.outcome || a.lease !== lease) return false;
      a.outcome = outcome;
      a.expiresAt = now() + timings.outcomeTtlMs;
      return true;
    },
    async view(waitId, examId, userKey) {
      const a = find(waitId, examId, userKey);
      if (!a) return { state: "unknown" };
      if (!a.outcome) return { state: "running", leaseLapsed: a.leaseUntil <= now() };
      return { state: "done", outcome: a.outcome.kind, claimed: a.claimed };
    },
    async takeOver(waitId, examId, userKey) {
      const a = find(waitId, examId, userKey);
      return a && !a.outcome && a.leaseUntil <= now() ? own(a) : undefined;
    },
    async claim(waitId, examId, userKey) {
      const a = find(waitId, examId, userKey);
      if (!a?.outcome) return undefined;
      if (a.outcome.kind === "failed") return a.outcome;
      if (a.claimed) return now() - a.claimedAt <= claimGraceMs ? a.outcome : undefined;
      a.claimed = true;
      a.claimedAt = now();
      return a.outcome;
    },
  };
}
