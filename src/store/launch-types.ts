/**
 * The launch record: one row per launch outcome of an identified student, per
 * organization, for the instructor ("did Ana open the exam, and when?") and for a
 * dispute later. Never a token or a key: only who, which exam, when, how and what came of it.
 */
import type { ExamKind } from "./types.js";

/** Where the student's sign-in token came from. */
export type LaunchServedBy =
  /** A token pre-warmed by `prepare`: no platform call at launch. */
  | "prepared"
  /** The student's own sign-in call (a waiting page's refresh follows that same call). */
  | "on_demand"
  /** Joined a call already in flight for the same student (a double click, a second tab). */
  | "coalesced"
  /** No token: the platform's own host signs the student in. */
  | "platform_host"
  /** No token was handed out (refused, over the fair share, a failure, still waiting). */
  | "none";

/** How the student arrived: the app's launch link, or an LMS's LTI 1.3 launch. */
export type LaunchVia = "link" | "lti";

export interface LaunchRecord {
  /** When the outcome was answered (ISO 8601, UTC, milliseconds). */
  at: string;
  kind: ExamKind;
  examId: string;
  /** The route's outcome (`redirected`, `waiting`, `forbidden`, `launch_limited`, `platform_failed`…). */
  outcome: string;
  /** The HTTP status the student's browser got (303, 202, 403, 429, 502…). */
  status: number;
  servedBy: LaunchServedBy;
  via: LaunchVia;
  student: { orgInternalId: string; email: string };
  /** The fleet instance that answered (fleet mode only). */
  instance?: string;
}

export interface LaunchQuery {
  kind: ExamKind;
  examId: string;
  /** Only this student: their `orgInternalId` or e-mail, exactly. */
  student?: string;
  /** Only this outcome. */
  outcome?: string;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** Records per page (1–1000). */
  limit: number;
}

export interface LaunchPage {
  /** Newest first. */
  records: LaunchRecord[];
  /** Where the next (older) page starts; undefined on the last page. */
  nextCursor: string | undefined;
}

export interface LaunchCountQuery {
  kind: ExamKind;
  examId: string;
  /** Only records at or after this instant (ms since the epoch). */
  since?: number;
  /** Count each student once, by their latest record's outcome (ties: the later written). */
  latestPerStudent?: boolean;
}

export interface OralStoreLaunches {
  /** Appends records (one batch, usually written off the request path by the launch recorder). */
  addLaunches(org: string, records: LaunchRecord[]): Promise<void>;
  /**
   * One page of an exam's records, newest first (ties: the later written first). A
   * malformed cursor is a TypeError (the router checks cursors before asking).
   */
  listLaunches(org: string, query: LaunchQuery): Promise<LaunchPage>;
  /** Records (or students, with `latestPerStudent`) per outcome, for one exam. */
  countLaunches(org: string, query: LaunchCountQuery): Promise<Record<string, number>>;
  /**
   * Deletes records older than `before` (milliseconds since the epoch), in every
   * organization (one retention for all); resolves to how many went.
   */
  purgeLaunches(before: number): Promise<number>;
}
