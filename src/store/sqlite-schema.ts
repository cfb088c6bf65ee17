/**
 * The SQLite store's schema: its migrations and the statements that read and write it.
 * Kept apart from `sqlite.ts` (the store's behaviour) so each stays one concern.
 */
import type { Migration } from "./migrations.js";

/** Versions live in `PRAGMA user_version`: no extra table, and it is read in the same transaction. */
export const MIGRATIONS: readonly Migration<string>[] = [
  {
    version: 1,
    description: "courses, classes and assessments, soft-deleted, listed oldest first",
    // `seq` is the insertion-order tiebreak; an upsert keeps it, so a replaced record keeps its place.
    // `created_ms` sorts by instant (ISO strings with offsets do not sort as text).
    // Partial indexes: the lists and the DELETE cascade only ever look at live rows.
    up: `
      CREATE TABLE courses (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        deleted_at TEXT
      );
      CREATE INDEX courses_by_created ON courses (created_ms, seq) WHERE deleted_at IS NULL;
      CREATE TABLE classes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        course_id TEXT NOT NULL,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        deleted_at TEXT
      );
      CREATE INDEX classes_by_course ON classes (course_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE TABLE assessments (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        class_id TEXT NOT NULL,
        course_id TEXT,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        deleted_at TEXT
      );
      CREATE INDEX assessments_by_class ON assessments (class_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX assessments_by_course ON assessments (course_id) WHERE deleted_at IS NULL;
    `,
  },
  {
    version: 2,
    description: "idempotency records: the first answer of a POST per (user, Idempotency-Key)",
    // The primary key is the UNIQUE constraint that makes one of two concurrent callers lose.
    up: `
      CREATE TABLE idempotency (
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
        status INTEGER,
        body TEXT,
        started_ms INTEGER NOT NULL,
        PRIMARY KEY (user_id, key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_expiry ON idempotency (started_ms);
    `,
  },
  {
    version: 3,
    description: "exam kinds: role-plays share the exam registry with oral assessments",
    // Existing rows are oral assessments: the only kind earlier releases stored.
    up: `
      ALTER TABLE assessments ADD COLUMN kind TEXT NOT NULL DEFAULT 'oral' CHECK (kind IN ('oral', 'roleplay'));
      DROP INDEX assessments_by_class;
      CREATE INDEX assessments_by_class ON assessments (class_id, kind, created_ms, seq) WHERE deleted_at IS NULL;
    `,
  },
  {
    version: 4,
    description: "organizations: every record and idempotency key belongs to one; earlier rows to 'default'",
    // SQLite cannot change a table's UNIQUE or PRIMARY KEY constraint in place: each table is
    // rebuilt with `organization` in its key, rows copied with their seq (so lists keep their
    // order, and AUTOINCREMENT continues after them). 'default' is DEFAULT_ORGANIZATION's
    // value written out: a released step must not change if the constant ever did.
    // Every index leads with `organization`: every lookup names one.
    up: `
      CREATE TABLE courses_v4 (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        organization TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        deleted_at TEXT,
        UNIQUE (organization, id)
      );
      INSERT INTO courses_v4 (seq, organization, id, name, data, created_at, created_ms, deleted_at)
        SELECT seq, 'default', id, name, data, created_at, created_ms, deleted_at FROM courses;
      DROP TABLE courses;
      ALTER TABLE courses_v4 RENAME TO courses;
      CREATE INDEX courses_by_created ON courses (organization, created_ms, seq) WHERE deleted_at IS NULL;

      CREATE TABLE classes_v4 (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        organization TEXT NOT NULL,
        id TEXT NOT NULL,
        course_id TEXT NOT NULL,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        deleted_at TEXT,
        UNIQUE (organization, id)
      );
      INSERT INTO classes_v4 (seq, organization, id, course_id, name, data, created_at, created_ms, deleted_at)
        SELECT seq, 'default', id, course_id, name, data, created_at, created_ms, deleted_at FROM classes;
      DROP TABLE classes;
      ALTER TABLE classes_v4 RENAME TO classes;
      CREATE INDEX classes_by_course ON classes (organization, course_id, created_ms, seq) WHERE deleted_at IS NULL;

      CREATE TABLE assessments_v4 (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        organization TEXT NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('oral', 'roleplay')),
        class_id TEXT NOT NULL,
        course_id TEXT,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        deleted_at TEXT,
        UNIQUE (organization, id)
      );
      INSERT INTO assessments_v4 (seq, organization, id, kind, class_id, course_id, name, data, created_at, created_ms, deleted_at)
        SELECT seq, 'default', id, kind, class_id, course_id, name, data, created_at, created_ms, deleted_at FROM assessments;
      DROP TABLE assessments;
      ALTER TABLE assessments_v4 RENAME TO assessments;
      CREATE INDEX assessments_by_class ON assessments (organization, class_id, kind, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX assessments_by_course ON assessments (organization, course_id) WHERE deleted_at IS NULL;

      CREATE TABLE idempotency_v4 (
        organization TEXT NOT NULL,
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
        status INTEGER,
        body TEXT,
        started_ms INTEGER NOT NULL,
        PRIMARY KEY (organization, user_id, key)
      ) WITHOUT ROWID;
      INSERT INTO idempotency_v4 (organization, user_id, key, body_hash, state, status, body, started_ms)
        SELECT 'default', user_id, key, body_hash, state, status, body, started_ms FROM idempotency;
      DROP TABLE idempotency;
      ALTER TABLE idempotency_v4 RENAME TO idempotency;
      CREATE INDEX idempotency_expiry ON idempotency (started_ms);
    `,
  },
  {
    version: 5,
    description: "launch records: one row per launch outcome of an identified student, per organization",
    // Pages are read newest first by (at_ms, seq) within one exam: the index is walked backwards.
    // The retention purge crosses organizations, by time alone: its own index.
    up: `
      CREATE TABLE launches (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        organization TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('oral', 'roleplay')),
        exam_id TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER NOT NULL,
        served_by TEXT NOT NULL,
        via TEXT NOT NULL,
        student_id TEXT NOT NULL,
        student_email TEXT NOT NULL,
        instance TEXT
      );
      CREATE INDEX launches_by_exam ON launches (organization, kind, exam_id, at_ms, seq);
      CREATE INDEX launches_expiry ON launches (at_ms);
    `,
  },
  {
    version: 6,
    description: "LTI registrations (global, by issuer and client id) and their deployments, each naming an organization or none",
    // Booleans as 0/1 (SQLite has none). Deleting a registration deletes its deployments:
    // the cascade is spelled out in the delete, not left to foreign_keys (off by default).
    up: `
      CREATE TABLE lti_registrations (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        authorization_url TEXT NOT NULL,
        jwks_url TEXT NOT NULL,
        token_url TEXT,
        active INTEGER NOT NULL CHECK (active IN (0, 1)),
        accept_new_deployments INTEGER NOT NULL CHECK (accept_new_deployments IN (0, 1)),
        organization TEXT,
        data TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        UNIQUE (issuer, client_id)
      );
      CREATE TABLE lti_deployments (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        organization TEXT,
        UNIQUE (issuer, client_id, deployment_id)
      );
    `,
  },
  {
    version: 7,
    description: "each student's latest launch outcome per exam, kept as launches are written (the live view counts it instead of grouping the history)",
    // Filled from the launch history once; then each write upserts it (addLatestLaunch).
    up: `
      CREATE TABLE launch_latest (
        organization TEXT NOT NULL,
        kind TEXT NOT NULL,
        exam_id TEXT NOT NULL,
        student_id TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        PRIMARY KEY (organization, kind, exam_id, student_id)
      ) WITHOUT ROWID;
      CREATE INDEX launch_latest_expiry ON launch_latest (at_ms);
      INSERT INTO launch_latest (organization, kind, exam_id, student_id, at_ms, seq, outcome)
        SELECT organization, kind, exam_id, student_id, at_ms, seq, outcome FROM (
          SELECT organization, kind, exam_id, student_id, at_ms, seq, outcome, max(at_ms * 1000000 + seq % 1000000)
          FROM launches GROUP BY organization, kind, exam_id, student_id);
    `,
  },
  {
    version: 8,
    description: "LTI course binding: the classes each LMS course is linked to, and the exams a copied course's links open",
    // A course is (issuer, client_id, deployment_id, context_id) within an organization.
    // The learner's check reads one link by its whole key; canLink reads a class's links.
    up: `
      CREATE TABLE lti_course_links (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        class_id TEXT NOT NULL,
        linked_by TEXT NOT NULL,
        linked_at TEXT NOT NULL,
        UNIQUE (organization, issuer, client_id, deployment_id, context_id, class_id)
      );
      CREATE INDEX lti_course_links_by_class ON lti_course_links (organization, class_id, seq);
      CREATE TABLE lti_exam_copies (
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        from_exam_id TEXT NOT NULL,
        to_exam_id TEXT NOT NULL,
        PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, from_exam_id)
      ) WITHOUT ROWID;
    `,
  },  {
    version: 10,
    description: "LTI gradebook (AGS): the line item per exam and LMS course, and the score outbox",
    // The outbox is read by (state, next_ms); a learner's entries go out in seq order.
    up: `
      CREATE TABLE lti_line_items (
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        exam_id TEXT NOT NULL,
        url TEXT NOT NULL,
        PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, kind, exam_id)
      ) WITHOUT ROWID;
      CREATE TABLE lti_scores (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        organization TEXT NOT NULL,
        kind TEXT NOT NULL,
        exam_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        issuer TEXT NOT NULL,
        student_id TEXT,
        student_email TEXT,
        entry TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_ms INTEGER NOT NULL,
        queued_ms INTEGER NOT NULL,
        sent_at TEXT,
        last_error TEXT
      );
      CREATE INDEX lti_scores_due ON lti_scores (state, next_ms);
      CREATE INDEX lti_scores_by_learner ON lti_scores (organization, kind, exam_id, user_id, seq);
    `,
  },
];

// Deletion is final: an upsert never clears deleted_at, and a child written under a
// deleted parent (a request racing the DELETE) takes the parent's deleted_at.
// Every statement names the organization (@org): a lookup, a parent, a cascade never crosses one.
export const SQL = {
  putCourse: `INSERT INTO courses (organization, id, name, data, created_at, created_ms)
    VALUES (@org, @id, @name, @data, @createdAt, @createdMs)
    ON CONFLICT (organization, id) DO UPDATE SET name = excluded.name, data = excluded.data,
      created_at = excluded.created_at, created_ms = excluded.created_ms`,
  putClass: `INSERT INTO classes (organization, id, course_id, name, data, created_at, created_ms, deleted_at)
    VALUES (@org, @id, @courseId, @name, @data, @createdAt, @createdMs,
      (SELECT deleted_at FROM courses WHERE organization = @org AND id = @courseId))
    ON CONFLICT (organization, id) DO UPDATE SET course_id = excluded.course_id, name = excluded.name, data = excluded.data,
      created_at = excluded.created_at, created_ms = excluded.created_ms,
      deleted_at = coalesce(classes.deleted_at, excluded.deleted_at)`,
  // courseId is denormalised from the class when the caller did not give one.
  // ("WHERE true" resolves SQLite's parsing ambiguity between a join and the upsert clause.)
  putAssessment: `INSERT INTO assessments (organization, id, kind, class_id, course_id, name, data, created_at, created_ms, deleted_at)
    SELECT @org, @id, @kind, @classId, r.course_id, @name, @data, @createdAt, @createdMs,
      coalesce((SELECT deleted_at FROM classes WHERE organization = @org AND id = @classId),
        (SELECT deleted_at FROM courses WHERE organization = @org AND id = r.course_id))
    FROM (SELECT coalesce(@courseId, (SELECT course_id FROM classes WHERE organization = @org AND id = @classId)) AS course_id) AS r WHERE true
    ON CONFLICT (organization, id) DO UPDATE SET kind = excluded.kind, class_id = excluded.class_id, course_id = excluded.course_id, name = excluded.name,
      data = excluded.data, created_at = excluded.created_at, created_ms = excluded.created_ms,
      deleted_at = coalesce(assessments.deleted_at, excluded.deleted_at)`,
  getCourse: "SELECT id, name, data, created_at FROM courses WHERE organization = @org AND id = @id AND deleted_at IS NULL",
  listCourses: "SELECT id, name, data, created_at FROM courses WHERE organization = @org AND deleted_at IS NULL ORDER BY created_ms, seq",
  getClass: "SELECT id, course_id, name, data, created_at FROM classes WHERE organization = @org AND id = @id AND deleted_at IS NULL",
  listClasses: `SELECT id, course_id, name, data, created_at FROM classes
    WHERE organization = @org AND course_id = @courseId AND deleted_at IS NULL ORDER BY created_ms, seq`,
  getAssessment: `SELECT id, kind, class_id, course_id, name, data, created_at FROM assessments
    WHERE organization = @org AND id = @id AND deleted_at IS NULL`,
  listAssessments: `SELECT id, kind, class_id, course_id, name, data, created_at FROM assessments
    WHERE organization = @org AND class_id = @classId AND kind = @kind AND deleted_at IS NULL ORDER BY created_ms, seq`,
  deleteClass: "UPDATE classes SET deleted_at = @now WHERE organization = @org AND id = @id AND deleted_at IS NULL",
  deleteClassExams: "UPDATE assessments SET deleted_at = @now WHERE organization = @org AND class_id = @id AND deleted_at IS NULL",
  deleteAssessment: "UPDATE assessments SET deleted_at = @now WHERE organization = @org AND id = @id AND deleted_at IS NULL",
  deleteCourse: "UPDATE courses SET deleted_at = @now WHERE organization = @org AND id = @id AND deleted_at IS NULL",
  deleteClasses: "UPDATE classes SET deleted_at = @now WHERE organization = @org AND course_id = @id AND deleted_at IS NULL",
  // Through the class as well: an assessment stored before its class has no course_id.
  deleteAssessments: `UPDATE assessments SET deleted_at = @now WHERE organization = @org AND deleted_at IS NULL
    AND (course_id = @id OR class_id IN (SELECT id FROM classes WHERE organization = @org AND course_id = @id))`,
  // Expired records go whatever their organization (the expiry is the same for all); a stale claim only for this key.
  purgeIdempotent: `DELETE FROM idempotency WHERE started_ms < @record
    OR (organization = @org AND user_id = @user AND key = @key AND state = 'pending' AND started_ms < @pending)`,
  claimIdempotent: `INSERT INTO idempotency (organization, user_id, key, body_hash, state, started_ms)
    VALUES (@org, @user, @key, @bodyHash, 'pending', @now) ON CONFLICT (organization, user_id, key) DO NOTHING`,
  readIdempotent: `SELECT body_hash AS bodyHash, state, status, body, started_ms AS startedMs
    FROM idempotency WHERE organization = @org AND user_id = @user AND key = @key`,
  completeIdempotent: `UPDATE idempotency SET state = 'done', status = @status, body = @body
    WHERE organization = @org AND user_id = @user AND key = @key AND state = 'pending'`,
  abandonIdempotent: "DELETE FROM idempotency WHERE organization = @org AND user_id = @user AND key = @key AND state = 'pending'",
  addLaunch: `INSERT INTO launches (organization, kind, exam_id, at_ms, outcome, status, served_by, via, student_id, student_email, instance)
    VALUES (@org, @kind, @examId, @atMs, @outcome, @status, @servedBy, @via, @studentId, @studentEmail, @instance)`,
  // Unset filters are NULL; the cursor is the last row's (at_ms, seq), read one past the page.
  listLaunches: `SELECT seq, kind, exam_id, at_ms, outcome, status, served_by, via, student_id, student_email, instance FROM launches
    WHERE organization = @org AND kind = @kind AND exam_id = @examId
      AND (@outcome IS NULL OR outcome = @outcome)
      AND (@student IS NULL OR student_id = @student OR student_email = @student)
      AND (@cursorAt IS NULL OR at_ms < @cursorAt OR (at_ms = @cursorAt AND seq < @cursorSeq))
    ORDER BY at_ms DESC, seq DESC LIMIT @limit`,
  countLaunches: `SELECT outcome, count(*) AS n FROM launches
    WHERE organization = @org AND kind = @kind AND exam_id = @examId AND at_ms >= @since GROUP BY outcome`,
  // A record replaces the student's latest unless an already written one is later (by at_ms, then seq).
  addLatestLaunch: `INSERT INTO launch_latest (organization, kind, exam_id, student_id, at_ms, seq, outcome)
    VALUES (@org, @kind, @examId, @studentId, @atMs, @seq, @outcome)
    ON CONFLICT (organization, kind, exam_id, student_id) DO UPDATE SET at_ms = excluded.at_ms, seq = excluded.seq, outcome = excluded.outcome
    WHERE excluded.at_ms > launch_latest.at_ms OR (excluded.at_ms = launch_latest.at_ms AND excluded.seq > launch_latest.seq)`,
  // One row per student: a student whose latest record is older than `since` has none since.
  countLatestLaunches: `SELECT outcome, count(*) AS n FROM launch_latest
    WHERE organization = @org AND kind = @kind AND exam_id = @examId AND at_ms >= @since GROUP BY outcome`,
  purgeLaunches: "DELETE FROM launches WHERE at_ms < @before",
  // A latest record past the retention: every record of that student and exam is too.
  purgeLatestLaunches: "DELETE FROM launch_latest WHERE at_ms < @before",
} as const;
