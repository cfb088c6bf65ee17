/**
 * What the router remembers about the records it created or listed, so that a launch can
 * find an exam's class (and course) without asking the platform, a deleted record stays
 * hidden, and a retried instructor POST replays its first answer.
 *
 * One async interface for every backend (memory, SQLite, PostgreSQL). Records keep the
 * platform's whole response in `data`, unknown fields included.
 */
export interface CourseRecord {
  id: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export interface ClassRecord {
  id: string;
  courseId: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/** The platform's two exam kinds: both launch the same way, on different exam pages. */
export type ExamKind = "oral" | "roleplay";

/** An exam of either kind (the exam → class registry the launch reads). */
export interface AssessmentRecord {
  id: string;
  /** Which kind of exam; stored records always carry it. Default `"oral"`. */
  kind?: ExamKind;
  classId: string;
  /** Denormalised from the class, so a launch needs one lookup. */
  courseId: string | undefined;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/**
 * Every record lives in one organization (`org`: see `isOrganizationId`; a
 * single-organization router uses `DEFAULT_ORGANIZATION`). The organization is part of
 * the record's identity: the same id in two organizations is two records, and no method
 * called with one organization reads, lists, replaces or deletes a record of another.
 */
export interface OralStore extends OralStoreIdempotency, OralStoreLaunches {
  /** Creates or migrates the schema. Idempotent; the router calls it before first use. */
  init(): Promise<void>;

  /** Insert or replace (same organization and id → latest wins). */
  putCourse(org: string, record: CourseRecord): Promise<void>;
  getCourse(org: string, id: string): Promise<CourseRecord | undefined>;
  listCourses(org: string): Promise<CourseRecord[]>;
  /** Marks the course, its classes and their assessments gone: they no longer appear in gets, lists or launches. */
  deleteCourse(org: string, id: string): Promise<void>;

  putClass(org: string, record: ClassRecord): Promise<void>;
  getClass(org: string, id: string): Promise<ClassRecord | undefined>;
  /** Oldest first. */
  listClasses(org: string, courseId: string): Promise<ClassRecord[]>;
  /** Marks the class and its exams (of both kinds) gone, like `deleteCourse`. */
  deleteClass(org: string, id: string): Promise<void>;

  putAssessment(org: string, record: AssessmentRecord): Promise<void>;
  getAssessment(org: string, id: string): Promise<AssessmentRecord | undefined>;
  /** The class's exams of one kind (default `"oral"`), oldest first. */
  listAssessments(org: string, classId: string, kind?: ExamKind): Promise<AssessmentRecord[]>;
  /** Marks one exam (of either kind) gone: hidden from gets and lists, its launch link then 404s. */
  deleteAssessment(org: string, id: string): Promise<void>;

  /** Releases connections / file handles. */
  close(): Promise<void>;
}

/**
 * Every method of `OralStore`, listed once: the router checks a custom store against this
 * list, and the compiler checks the list against the interface (a method added to the
 * interface and not here does not compile).
 */
export const STORE_METHODS = [
  "init", "putCourse", "getCourse", "listCourses", "deleteCourse", "putClass", "getClass", "listClasses", "deleteClass",
  "putAssessment", "getAssessment", "listAssessments", "deleteAssessment", "close",
  "beginIdempotent", "completeIdempotent", "abandonIdempotent",
  "addLaunches", "listLaunches", "countLaunches", "purgeLaunches",
] as const satisfies readonly (keyof OralStore)[];
type Unlisted = Exclude<keyof OralStore, (typeof STORE_METHODS)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

/**
 * Idempotency records: the first answer of an instructor POST, keyed by the organization,
 * the user and the `Idempotency-Key` header, so a retry replays it instead of creating a
 * second record on the platform. See `OralStore.beginIdempotent` for the protocol.
 */
export interface IdempotencyKey {
  /** The organization the request acts for: the same key in two organizations is two keys. */
  org: string;
  /** Who sent the request (the router's user id): keys are scoped per user within the organization. */
  user: string;
  /** The `Idempotency-Key` header as sent. */
  key: string;
}

export interface IdempotencyBeginInput extends IdempotencyKey {
  /** A hash of the request (method, path and body, as the caller chooses): a reused key with another request is a mismatch. */
  bodyHash: string;
  /** Milliseconds since the epoch; tests pass a value to step over the expiry. Default `Date.now()`. */
  now?: number;
}

export type IdempotencyBegin =
  /** This caller owns the key: make the call, then `completeIdempotent` or `abandonIdempotent`. */
  | { state: "new" }
  /** Another call with this key and request is in flight (or died less than `IDEMPOTENCY_PENDING_MS` ago). */
  | { state: "pending" }
  /** The first call finished: replay this answer. */
  | { state: "done"; status: number; body: unknown }
  /** The key was used with another request (another `bodyHash`). */
  | { state: "mismatch" };

export interface IdempotencyCompleteInput extends IdempotencyKey {
  status: number;
  /** Any JSON value; given back by `beginIdempotent` exactly as JSON gives it back. */
  body: unknown;
}

/** Records are purged (lazily, on a later `beginIdempotent`) this long after the first call began. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A record still pending after this long belongs to a call that died with its instance
 * (longer than any request deadline): the next caller with the key takes it over.
 */
export const IDEMPOTENCY_PENDING_MS = 5 * 60 * 1000;

export interface OralStoreIdempotency {
  /**
   * Claims (org, user, key) for a call, atomically: of concurrent callers exactly one gets
   * `new` (a UNIQUE constraint in SQLite and PostgreSQL, so this holds across processes
   * and instances sharing the database). The others get `pending` until the owner
   * completes, then `done` with the recorded answer; any caller whose `bodyHash` differs
   * from the recorded one gets `mismatch`. Expired records (older than
   * `IDEMPOTENCY_TTL_MS`) are deleted here, and a stale pending one is taken over.
   */
  beginIdempotent(input: IdempotencyBeginInput): Promise<IdempotencyBegin>;
  /** Records the answer of the call that got `new`. A no-op when the record is not pending. */
  completeIdempotent(input: IdempotencyCompleteInput): Promise<void>;
  /** Forgets a pending claim (the call failed before it had an answer worth replaying), so a retry may try again. */
  abandonIdempotent(input: IdempotencyKey): Promise<void>;
}

export type { LaunchCountQuery, LaunchPage, LaunchQuery, LaunchRecord, LaunchServedBy, LaunchVia, OralStoreLaunches } from "./launch-types.js";
import type { OralStoreLaunches } from "./launch-types.js";
export type { LtiDeploymentRecord, LtiRegistrationInput, LtiRegistrationRecord, OralStoreLti } from "./lti-types.js";
export type { LtiCourseCopyNotice, LtiCourseKey, LtiCourseLink, LtiCourseServices, OralStoreLtiCourses } from "./lti-course-types.js";
export type { LtiLineItemKey, LtiScoreBody, LtiScoreEntry, LtiScoreRecord, OralStoreLtiGradebook } from "./lti-gradebook-types.js";
import type { OralStoreLti } from "./lti-types.js";

/**
 * A store that also keeps LTI's tables: the three bundled stores are. A custom store needs
 * the LTI methods only when the router has an `lti` option (or an `lti.store` of its own).
 */
export type OralStoreWithLti = OralStore & OralStoreLti;

/**
 * The organization a single-organization router acts for (`platform` + `examHost`): every
 * record, idempotency key and fleet key of such a router is scoped under this id.
 */
export const DEFAULT_ORGANIZATION = "default";

const ORGANIZATION_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** 1–64 letters, digits, `_`, `.` or `-`: safe inside a Redis key, a SQL value and a log line. */
export function isOrganizationId(value: unknown): value is string {
  return typeof value === "string" && ORGANIZATION_ID.test(value);
}
