/**
 * The LMS gradebook (AGS, schema versions 10, 11 and 13): the line item the tool uses per exam and
 * LMS course, and the score outbox. A score is written here first, then posted to the
 * LMS by the outbox worker (src/lti/gradebook/outbox.ts), retried with backoff until the
 * LMS takes it: a restart, a crash or an LMS outage loses none. Entries of one learner on
 * one exam go out in the order they were queued (a `Started` before its `Submitted`).
 */
import { isText } from "../core/text.js";
import type { ExamKind } from "./types.js";
import type { LtiCourseKey } from "./lti-course-types.js";

export const ACTIVITY_PROGRESS = ["Initialized", "Started", "InProgress", "Submitted", "Completed"] as const;
export const GRADING_PROGRESS = ["FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"] as const;
export type ActivityProgress = (typeof ACTIVITY_PROGRESS)[number];
export type GradingProgress = (typeof GRADING_PROGRESS)[number];

/** One exam in one LMS course. */
export interface LtiLineItemKey extends LtiCourseKey {
  kind: ExamKind;
  examId: string;
}

/** What the LMS is told (AGS score, `application/vnd.ims.lis.v1.score+json`), less `userId`. */
export interface LtiScoreBody {
  activityProgress: ActivityProgress;
  gradingProgress: GradingProgress;
  /** ISO 8601: when this happened (a launch's time, a return's, a grading's). */
  timestamp: string;
  scoreGiven?: number;
  scoreMaximum?: number;
  /** Always set: Blackboard clears the comment of a score posted without one. */
  comment: string;
  /** When the learner submitted (their return, else their launch): a late grading is not a late submission (canvas-lms#1799). */
  submittedAt?: string;
  /** When the learner started (their launch). */
  startedAt?: string;
}

/** One queued score. */
export interface LtiScoreEntry {
  /** Unique; a second entry with the same id is ignored (a launch's waiting page refreshing). */
  id: string;
  key: LtiLineItemKey;
  /** The LMS user (`sub` of the launch). */
  userId: string;
  /** The student as the platform knows them (the launch record's). */
  student: { orgInternalId?: string; email?: string };
  resourceLinkId?: string;
  /** The AGS endpoint claim of the launch: the link's own line item, the course's line item container, the scopes granted. */
  ags: { lineItem?: string; lineItems?: string; scope: string[] };
  /** The line item's label, should the tool have to create it. */
  label: string;
  score: LtiScoreBody;
  /** ISO 8601. */
  queuedAt: string;
}

/**
 * What the gradebook learned when it settled an entry (what the LMS held when a grade went,
 * src/lti/gradebook/lms-reads.ts): a JSON object, kept and returned whole. The store reads
 * none of its fields: the launch record's `meta.gradebook` shows them as they are, so a new
 * fact needs no change here.
 */
export type LtiScoreNote = Record<string, unknown>;

/** `superseded`: a newer entry of the same status for the same learner was queued while this one waited; never posted. */
export type LtiScoreState = "pending" | "sent" | "failed" | "superseded";

/** An entry with its delivery. */
export interface LtiScoreRecord extends LtiScoreEntry {
  org: string;
  state: LtiScoreState;
  attempts: number;
  /** When it is next due (ms since the epoch); a claimed entry is leased until then. */
  nextAtMs: number;
  sentAt?: string;
  /** Why the last attempt failed (never a token). */
  lastError?: string;
  /** The note of the last settle (`LtiScoreNote`), whole. */
  note?: LtiScoreNote;
}

export interface LtiScoreSettle {
  state: LtiScoreState;
  attempts: number;
  nextAtMs: number;
  sentAt?: string;
  lastError?: string;
  /** Kept whole until the next settle (one without a note clears it). */
  note?: LtiScoreNote;
}

/** The SQL stores' `note` column: the note as JSON text, or NULL. */
export const ltiNoteColumn = (o: LtiScoreSettle): string | null => (o.note ? JSON.stringify(o.note) : null);

export interface OralStoreLtiGradebook {
  /** Keeps the first line item URL of this exam in this course; answers the one kept. */
  putLtiLineItem(org: string, key: LtiLineItemKey, url: string): Promise<string>;
  getLtiLineItem(org: string, key: LtiLineItemKey): Promise<string | undefined>;
  /**
   * Queues entries (one transaction); an id already queued is skipped. Answers how many were
   * added. An entry supersedes the same learner's (organization, kind, exam, LMS user)
   * waiting entries with the same status in the same LMS course (`ltiReplaceKeyOf`): they become `superseded` (the LMS
   * keeps only the latest score anyway). The learner's first pending entry, the one that
   * may be in flight, is never superseded.
   */
  addLtiScores(org: string, entries: LtiScoreEntry[]): Promise<number>;
  /**
   * Claims up to `limit` pending entries due at `now`, in every organization, leasing
   * each until `now + leaseMs` (another instance, or this one after a crash, takes it
   * again only once the lease ran out). Only a learner's first pending entry (their
   * head) is claimable: the next one waits until it is settled. Entries whose LMS
   * (`ltiLaneOf`) is in `skipLanes` are left. Costs the same with 10 or 100,000 rows kept.
   */
  claimLtiScores(now: number, limit: number, leaseMs: number, skipLanes?: readonly string[]): Promise<LtiScoreRecord[]>;
  /**
   * Makes every waiting head of one LMS (`ltiLaneOf`) due no sooner than `untilMs`: the LMS
   * asked the tool to wait (`Retry-After`) or its breaker is open. Entries already due
   * later (leased to a post in flight, or backed off) keep theirs. Answers how many moved.
   */
  deferLtiScores(lane: string, untilMs: number): Promise<number>;
  /** Records an attempt's outcome; a `sent` / `failed` entry hands the learner's head to their next pending entry. */
  settleLtiScore(id: string, outcome: LtiScoreSettle): Promise<void>;
  /** Deletes up to `limit` entries no longer pending (sent, failed, superseded) settled before `beforeMs`; answers how many went. */
  purgeLtiScores(beforeMs: number, limit: number): Promise<number>;
  /** One exam's entries, newest first (at most `limit`); `student`: only this `orgInternalId` or e-mail. */
  listLtiScores(org: string, query: { kind: ExamKind; examId: string; student?: string; limit: number }): Promise<LtiScoreRecord[]>;
}

/**
 * The LMS an entry goes to, for fairness, pauses and breakers: the origin of its line item
 * (or line item container) URL, where its scores are posted.
 */
export function ltiLaneOf(e: Pick<LtiScoreEntry, "ags">): string {
  const url = e.ags.lineItem ?? e.ags.lineItems;
  return url && URL.canParse(url) ? new URL(url).origin : "";
}

/**
 * What a newer entry supersedes: an older waiting one of the same learner with the same
 * key, its progress pair (the "status") in the same LMS course. Fields joined by U+001F,
 * as the SQL stores' upgrade writes it.
 */
export function ltiReplaceKeyOf(e: Pick<LtiScoreEntry, "score" | "key">): string {
  return [e.score.activityProgress, e.score.gradingProgress, e.key.issuer, e.key.clientId, e.key.deploymentId, e.key.contextId].join("\u001f");
}

/** A TypeError, like the other checks: a bad entry is a bug in the caller. */
export function checkLtiScoreEntry(org: unknown, e: LtiScoreEntry): void {
  if (!isText(org, 64) || !e || !isText(e.id, 255) || !isText(e.userId, 255) || !isText(e.key?.examId, 255) || !isText(e.key?.contextId, 255)
    || !isText(e.key?.issuer, 255) || !isText(e.key?.clientId, 255) || !isText(e.key?.deploymentId, 255) || typeof e.score?.comment !== "string") {
    throw new TypeError("invalid LTI score entry: organization, id, userId, key (course and exam) and score.comment must be set");
  }
}

/** A SQL row (both dialects). */
export interface LtiScoreRow {
  organization: string;
  entry: string;
  state: string;
  attempts: number | string;
  next_ms: number | string;
  sent_at: string | null;
  last_error: string | null;
  note: string | null;
}

/** A note column's object; a text that is no JSON object (none is written) shows no note rather than failing the list. */
function noteOf(text: string): LtiScoreNote | undefined {
  try {
    const note = JSON.parse(text) as unknown;
    return note !== null && typeof note === "object" && !Array.isArray(note) ? note as LtiScoreNote : undefined;
  } catch {
    return undefined;
  }
}

export function toLtiScoreRecord(r: LtiScoreRow): LtiScoreRecord {
  const entry = JSON.parse(r.entry) as LtiScoreEntry;
  const note = r.note ? noteOf(r.note) : undefined;
  return {
    ...entry, org: r.organization, state: r.state as LtiScoreState, attempts: Number(r.attempts), nextAtMs: Number(r.next_ms),
    ...(r.sent_at ? { sentAt: r.sent_at } : {}), ...(r.last_error ? { lastError: r.last_error } : {}),
    ...(note ? { note } : {}),
  };
}

/** The columns of an entry (both dialects, by name). */
export function ltiScoreColumns(org: string, e: LtiScoreEntry, now: number) {
  return {
    id: e.id, org, kind: e.key.kind, examId: e.key.examId, userId: e.userId, issuer: e.key.issuer,
    studentId: e.student.orgInternalId ?? null, studentEmail: e.student.email ?? null,
    entry: JSON.stringify(e), nextMs: now, queuedMs: Date.parse(e.queuedAt) || now, lane: ltiLaneOf(e), replaceKey: ltiReplaceKeyOf(e),
  };
}
