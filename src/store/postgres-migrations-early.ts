/**
 * The PostgreSQL store's first four schema steps (the tables of the first releases, and
 * organizations added to them). Released steps never change; `postgres-migrations.ts`
 * lists them first and appends the later ones.
 */
import type { Migration } from "./migrations.js";
import type { Names } from "./postgres-schema.js";

// `seq` is the insertion-order tiebreak (an upsert keeps it); `created_ms` sorts by
// instant; `created_at` keeps the caller's exact string. Partial indexes: lists and the
// DELETE cascade only ever read live rows.
export const EARLY_MIGRATIONS: readonly Migration<(n: Names) => string>[] = [
  {
    version: 1,
    description: "courses, classes and assessments, soft-deleted, listed oldest first",
    up: (n) => [
      [n.courses, ""],
      [n.classes, "course_id TEXT NOT NULL,"],
      [n.assessments, "class_id TEXT NOT NULL, course_id TEXT,"],
    ].map(([table, parents]) => `
      CREATE TABLE IF NOT EXISTS ${table} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        id TEXT PRIMARY KEY,
        ${parents}
        name TEXT NOT NULL,
        data JSONB NOT NULL,
        created_at TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        deleted_at TIMESTAMPTZ
      );`).join("\n") + `
      CREATE INDEX IF NOT EXISTS ${n.index("courses_by_created")} ON ${n.courses} (created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX IF NOT EXISTS ${n.index("classes_by_course")} ON ${n.classes} (course_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX IF NOT EXISTS ${n.index("assessments_by_class")} ON ${n.assessments} (class_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX IF NOT EXISTS ${n.index("assessments_by_course")} ON ${n.assessments} (course_id) WHERE deleted_at IS NULL;`,
  },
  {
    version: 2,
    description: "idempotency records: the first answer of a POST per (user, Idempotency-Key)",
    // The primary key is the UNIQUE constraint that makes one of two concurrent callers
    // (on any instance) lose. body is TEXT, not JSONB: replayed as recorded.
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.idempotency} (
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
        status INTEGER,
        body TEXT,
        started_ms BIGINT NOT NULL,
        PRIMARY KEY (user_id, key)
      );
      CREATE INDEX IF NOT EXISTS ${n.index("idempotency_expiry")} ON ${n.idempotency} (started_ms);`,
  },
  {
    version: 3,
    description: "exam kinds: role-plays share the exam registry with oral assessments",
    // Existing rows are oral assessments: the only kind earlier releases stored.
    up: (n) => `
      ALTER TABLE ${n.assessments} ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT 'oral' CHECK (kind IN ('oral', 'roleplay'));
      DROP INDEX IF EXISTS "${n.schema}".${n.index("assessments_by_class")};
      CREATE INDEX IF NOT EXISTS ${n.index("assessments_by_class")} ON ${n.assessments} (class_id, kind, created_ms, seq) WHERE deleted_at IS NULL;`,
  },
  {
    version: 4,
    description: "organizations: every record and idempotency key belongs to one; earlier rows to 'default'",
    // Existing rows take 'default' (DEFAULT_ORGANIZATION's value written out: a released
    // step must not change if the constant ever did); the default is then dropped, so a
    // write that forgets its organization fails instead of landing in 'default'. The
    // primary keys (named by PostgreSQL `<table>_pkey`) gain the organization, and every
    // index leads with it: every lookup names one.
    up: (n) => [[n.courses, "courses"], [n.classes, "classes"], [n.assessments, "assessments"]].map(([table, name]) => `
      ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS organization TEXT NOT NULL DEFAULT 'default';
      ALTER TABLE ${table} ALTER COLUMN organization DROP DEFAULT;
      ALTER TABLE ${table} DROP CONSTRAINT ${n.index(`${name}_pkey`)};
      ALTER TABLE ${table} ADD CONSTRAINT ${n.index(`${name}_pkey`)} PRIMARY KEY (organization, id);`).join("\n") + `
      ALTER TABLE ${n.idempotency} ADD COLUMN IF NOT EXISTS organization TEXT NOT NULL DEFAULT 'default';
      ALTER TABLE ${n.idempotency} ALTER COLUMN organization DROP DEFAULT;
      ALTER TABLE ${n.idempotency} DROP CONSTRAINT ${n.index("idempotency_pkey")};
      ALTER TABLE ${n.idempotency} ADD CONSTRAINT ${n.index("idempotency_pkey")} PRIMARY KEY (organization, user_id, key);
      DROP INDEX IF EXISTS "${n.schema}".${n.index("courses_by_created")};
      DROP INDEX IF EXISTS "${n.schema}".${n.index("classes_by_course")};
      DROP INDEX IF EXISTS "${n.schema}".${n.index("assessments_by_class")};
      DROP INDEX IF EXISTS "${n.schema}".${n.index("assessments_by_course")};
      CREATE INDEX ${n.index("courses_by_created")} ON ${n.courses} (organization, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX ${n.index("classes_by_course")} ON ${n.classes} (organization, course_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX ${n.index("assessments_by_class")} ON ${n.assessments} (organization, class_id, kind, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX ${n.index("assessments_by_course")} ON ${n.assessments} (organization, course_id) WHERE deleted_at IS NULL;`,
  },
];
