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
];

// Deletion is final: an upsert never clears deleted_at, and a child written under a
// deleted parent (a request racing the DELETE) takes the parent's deleted_at.
export const SQL = {
  putCourse: `INSERT INTO courses (id, name, data, created_at, created_ms) VALUES (@id, @name, @data, @createdAt, @createdMs)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, data = excluded.data,
      created_at = excluded.created_at, created_ms = excluded.created_ms`,
  putClass: `INSERT INTO classes (id, course_id, name, data, created_at, created_ms, deleted_at)
    VALUES (@id, @courseId, @name, @data, @createdAt, @createdMs, (SELECT deleted_at FROM courses WHERE id = @courseId))
    ON CONFLICT (id) DO UPDATE SET course_id = excluded.course_id, name = excluded.name, data = excluded.data,
      created_at = excluded.created_at, created_ms = excluded.created_ms,
      deleted_at = coalesce(classes.deleted_at, excluded.deleted_at)`,
  // courseId is denormalised from the class when the caller did not give one.
  // ("WHERE true" resolves SQLite's parsing ambiguity between a join and the upsert clause.)
  putAssessment: `INSERT INTO assessments (id, kind, class_id, course_id, name, data, created_at, created_ms, deleted_at)
    SELECT @id, @kind, @classId, r.course_id, @name, @data, @createdAt, @createdMs,
      coalesce((SELECT deleted_at FROM classes WHERE id = @classId), (SELECT deleted_at FROM courses WHERE id = r.course_id))
    FROM (SELECT coalesce(@courseId, (SELECT course_id FROM classes WHERE id = @classId)) AS course_id) AS r WHERE true
    ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, class_id = excluded.class_id, course_id = excluded.course_id, name = excluded.name,
      data = excluded.data, created_at = excluded.created_at, created_ms = excluded.created_ms,
      deleted_at = coalesce(assessments.deleted_at, excluded.deleted_at)`,
  getCourse: "SELECT id, name, data, created_at FROM courses WHERE id = ? AND deleted_at IS NULL",
  listCourses: "SELECT id, name, data, created_at FROM courses WHERE deleted_at IS NULL ORDER BY created_ms, seq",
  getClass: "SELECT id, course_id, name, data, created_at FROM classes WHERE id = ? AND deleted_at IS NULL",
  listClasses: `SELECT id, course_id, name, data, created_at FROM classes
    WHERE course_id = ? AND deleted_at IS NULL ORDER BY created_ms, seq`,
  getAssessment: "SELECT id, kind, class_id, course_id, name, data, created_at FROM assessments WHERE id = ? AND deleted_at IS NULL",
  listAssessments: `SELECT id, kind, class_id, course_id, name, data, created_at FROM assessments
    WHERE class_id = ? AND kind = ? AND deleted_at IS NULL ORDER BY created_ms, seq`,
  deleteClass: "UPDATE classes SET deleted_at = @now WHERE id = @id AND deleted_at IS NULL",
  deleteClassExams: "UPDATE assessments SET deleted_at = @now WHERE class_id = @id AND deleted_at IS NULL",
  deleteAssessment: "UPDATE assessments SET deleted_at = @now WHERE id = @id AND deleted_at IS NULL",
  deleteCourse: "UPDATE courses SET deleted_at = @now WHERE id = @id AND deleted_at IS NULL",
  deleteClasses: "UPDATE classes SET deleted_at = @now WHERE course_id = @id AND deleted_at IS NULL",
  // Through the class as well: an assessment stored before its class has no course_id.
  deleteAssessments: `UPDATE assessments SET deleted_at = @now WHERE deleted_at IS NULL
    AND (course_id = @id OR class_id IN (SELECT id FROM classes WHERE course_id = @id))`,
  purgeIdempotent: `DELETE FROM idempotency WHERE started_ms < @record
    OR (user_id = @user AND key = @key AND state = 'pending' AND started_ms < @pending)`,
  claimIdempotent: `INSERT INTO idempotency (user_id, key, body_hash, state, started_ms)
    VALUES (@user, @key, @bodyHash, 'pending', @now) ON CONFLICT (user_id, key) DO NOTHING`,
  readIdempotent: `SELECT body_hash AS bodyHash, state, status, body, started_ms AS startedMs
    FROM idempotency WHERE user_id = @user AND key = @key`,
  completeIdempotent: `UPDATE idempotency SET state = 'done', status = @status, body = @body
    WHERE user_id = @user AND key = @key AND state = 'pending'`,
  abandonIdempotent: "DELETE FROM idempotency WHERE user_id = @user AND key = @key AND state = 'pending'",
} as const;
