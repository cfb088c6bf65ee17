/**
 * One exam's pre-warming plan: its roster, each student's prepared token, and the
 * progress report. `preparer.ts` decides when to call the platform; this file decides
 * what a token may be used for.
 *
 * The tokens themselves live in the fleet's `PreparedTokenStore` (in process by default,
 * encrypted in Redis in fleet mode), never here, in the database, a log line, a progress
 * report or `util.inspect` output. A token is handed out at most once fleet-wide, only to
 * the student it was issued for (keyed on `orgInternalId` *and* e-mail), and only while
 * it has `minTokenLifeMs` of life left. An entry knows what this instance saw of it.
 */
import type { StudentIdentity } from "../../platform/schemas.js";
import { studentKey } from "../shared/student-key.js";

/**
 * A ready token whose usable life ends within this window counts as `expiring`. Before
 * keepUntil the preparer refreshes a token from its last minute on, so a count that stays
 * above zero says refreshing is behind; after keepUntil they go stale unused.
 */
export const EXPIRING_WITHIN_MS = 60_000;

/**
 * - `waiting`: no token yet (not issued, issuing, or its token went stale and is re-issued);
 * - `ready`: holds a token (usable until `usableUntil`);
 * - `handedOut`: its token went to its student; nothing more is issued for it;
 * - `onDemand`: the student launched while no usable token was here and got one on demand;
 * - `failed`: the platform refused it, or every retry failed.
 */
export type EntryState = "waiting" | "ready" | "handedOut" | "onDemand" | "failed";

export class PreparedEntry {
  state: EntryState = "waiting";
  /** ms since epoch; after it the token is never handed out (life left < minTokenLifeMs). */
  usableUntil = 0;
  inFlight = false;
  failures = 0;
  /** Earliest next call after a transient failure. */
  nextTryAt = 0;
  /** A refresh failed for good: keep the current token until it is stale, then stop. */
  noMoreCalls = false;
  lastError: { code: string; message: string } | undefined;

  constructor(readonly student: StudentIdentity) {}

  /** Its token went into the store, usable until `usableUntil`. */
  hold(usableUntil: number): void {
    this.usableUntil = usableUntil;
    this.state = "ready";
    this.failures = 0;
    this.nextTryAt = 0;
  }

  hasUsableToken(now: number): boolean {
    return this.state === "ready" && now < this.usableUntil;
  }

  toJSON(): Record<string, unknown> {
    return { orgInternalId: this.student.orgInternalId, state: this.state, usableUntil: this.usableUntil };
  }
}

/** What `GET /oral-assessments/:examId/prepare` answers. Never holds a token. */
export interface PrepareProgress {
  examId: string;
  classId: string;
  startAt: string;
  /** When issuing begins (startAt − lead). */
  issueFrom: string;
  /** Until when unused tokens are refreshed (startAt + keepAfterStartMs). */
  keepUntil: string;
  /** `scheduled` before issueFrom, `issuing` while tokens are missing, `ready` when all are in, `finished` after keepUntil. */
  state: "scheduled" | "issuing" | "ready" | "finished";
  roster: number;
  /** Students holding a usable token now. */
  ready: number;
  /** Of `ready`, tokens whose usable life ends within `EXPIRING_WITHIN_MS` (60 s). */
  expiring: number;
  /** Students whose token is not issued yet (or is being refreshed). */
  pending: number;
  /** Students the platform refused (see `failures`); they launch on demand. */
  failed: number;
  /** Prepared tokens given to their students. */
  handedOut: number;
  /** Students who launched while no usable token was ready, and got one on demand. */
  onDemand: number;
  /** Tokens that went stale after keepUntil, unused. */
  expired: number;
  /** Sign-in token requests this plan sent (issues and refreshes). */
  platformCalls: number;
  /** Up to 20 failed students with the platform's reason. */
  failures: { orgInternalId: string; code: string; message: string }[];
}

export class PreparationPlan {
  readonly entries = new Map<string, PreparedEntry>();
  /** Replaced by a newer plan: late answers are discarded. */
  cancelled = false;
  platformCalls = 0;

  constructor(
    readonly examId: string,
    readonly classId: string,
    readonly courseId: string | undefined,
    readonly startAt: number,
    readonly issueFrom: number,
    readonly keepUntil: number,
    roster: StudentIdentity[],
  ) {
    // The first entry for a student wins: a roster listing someone twice costs one token.
    for (const student of roster) {
      const key = studentKey(student);
      if (!this.entries.has(key)) this.entries.set(key, new PreparedEntry(student));
    }
  }

  entryFor(student: { orgInternalId: string; email: string }): PreparedEntry | undefined {
    return this.entries.get(studentKey(student));
  }

  /** Keeps what an earlier plan for the same exam and class already achieved. */
  adopt(previous: PreparationPlan, now: number): void {
    if (previous.classId !== this.classId) return;
    for (const [key, old] of previous.entries) {
      const entry = this.entries.get(key);
      if (!entry) continue;
      if (old.state === "handedOut" || old.state === "onDemand") entry.state = old.state;
      else if (old.hasUsableToken(now)) entry.hold(old.usableUntil);
    }
  }

  progress(now: number): PrepareProgress {
    const counts = { ready: 0, expiring: 0, pending: 0, failed: 0, handedOut: 0, onDemand: 0, expired: 0 };
    const failures: PrepareProgress["failures"] = [];
    const over = now >= this.keepUntil;
    for (const entry of this.entries.values()) {
      if (entry.state === "handedOut") counts.handedOut += 1;
      else if (entry.state === "onDemand") counts.onDemand += 1;
      else if (entry.state === "failed") {
        counts.failed += 1;
        if (failures.length < 20) failures.push({ orgInternalId: entry.student.orgInternalId, ...(entry.lastError ?? { code: "failed", message: "" }) });
      } else if (entry.hasUsableToken(now)) {
        counts.ready += 1;
        if (entry.usableUntil - now <= EXPIRING_WITHIN_MS) counts.expiring += 1;
      }
      else if (over || entry.noMoreCalls) counts.expired += 1;
      else counts.pending += 1;
    }
    const state = over ? "finished" : now < this.issueFrom ? "scheduled" : counts.pending > 0 ? "issuing" : "ready";
    return {
      examId: this.examId,
      classId: this.classId,
      startAt: new Date(this.startAt).toISOString(),
      issueFrom: new Date(this.issueFrom).toISOString(),
      keepUntil: new Date(this.keepUntil).toISOString(),
      state,
      roster: this.entries.size,
      ...counts,
      platformCalls: this.platformCalls,
      failures,
    };
  }
}
