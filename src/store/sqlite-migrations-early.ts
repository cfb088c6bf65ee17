/**
 * The SQLite store's first four schema steps (the tables of the first releases, and their
 * rebuild with organizations). Released steps never change; `sqlite-migrations.ts` lists
 * them first and appends the later ones.
 */
import type { Migration } from "./migrations.js";

export const EARLY_MIGRATIONS: readonly Migration<string>[] = [
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
];
