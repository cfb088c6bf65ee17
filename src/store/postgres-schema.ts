/**
 * The tables of the PostgreSQL store: their names, the migrations that create them and
 * the statements that read and write them. Names are built from the validated `schema`
 * and `tablePrefix` options (lower-case identifiers only), never from record values:
 * every value travels as a query parameter.
 */
import type { PostgresPool, PostgresPoolClient } from "./postgres-pool.js";
import { pendingMigrations, type Migration } from "./migrations.js";

export interface Names {
  schema: string;
  version: string;
  courses: string;
  classes: string;
  assessments: string;
  idempotency: string;
  launches: string;
  launchLatest: string;
  ltiRegistrations: string;
  ltiDeployments: string;
  ltiCourseLinks: string;
  ltiExamCopies: string;
  ltiLineItems: string;
  ltiScores: string;
  /** An index name: unqualified, since an index lives in its table's schema. */
  index(name: string): string;
}

export function names(schema: string, prefix: string): Names {
  const table = (name: string) => `"${schema}"."${prefix}${name}"`;
  return {
    schema,
    version: table("schema_version"),
    courses: table("courses"),
    classes: table("classes"),
    assessments: table("assessments"),
    idempotency: table("idempotency"),
    launches: table("launches"),
    launchLatest: table("launch_latest"),
    ltiRegistrations: table("lti_registrations"),
    ltiDeployments: table("lti_deployments"),
    ltiCourseLinks: table("lti_course_links"),
    ltiExamCopies: table("lti_exam_copies"),
    ltiLineItems: table("lti_line_items"),
    ltiScores: table("lti_scores"),
    index: (name) => `"${prefix}${name}"`,
  };
}

// `seq` is the insertion-order tiebreak (an upsert keeps it); `created_ms` sorts by
// instant; `created_at` keeps the caller's exact string. Partial indexes: lists and the
// DELETE cascade only ever read live rows.
export const MIGRATIONS: readonly Migration<(n: Names) => string>[] = [
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
  {
    version: 5,
    description: "launch records: one row per launch outcome of an identified student, per organization",
    // Pages are read newest first by (at_ms, seq) within one exam: the index is walked
    // backwards. The retention purge crosses organizations, by time alone: its own index.
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.launches} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        organization TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('oral', 'roleplay')),
        exam_id TEXT NOT NULL,
        at_ms BIGINT NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER NOT NULL,
        served_by TEXT NOT NULL,
        via TEXT NOT NULL,
        student_id TEXT NOT NULL,
        student_email TEXT NOT NULL,
        instance TEXT,
        PRIMARY KEY (organization, seq)
      );
      CREATE INDEX IF NOT EXISTS ${n.index("launches_by_exam")} ON ${n.launches} (organization, kind, exam_id, at_ms, seq);
      CREATE INDEX IF NOT EXISTS ${n.index("launches_expiry")} ON ${n.launches} (at_ms);`,
  },
  {
    version: 6,
    description: "LTI registrations (global, by issuer and client id) and their deployments, each naming an organization or none",
    // Global tables: a registration is the LMS's, not an organization's. A deployment's
    // foreign key cascades the registration's delete and refuses an orphan.
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.ltiRegistrations} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        authorization_url TEXT NOT NULL,
        jwks_url TEXT NOT NULL,
        token_url TEXT,
        active BOOLEAN NOT NULL,
        accept_new_deployments BOOLEAN NOT NULL,
        organization TEXT,
        data JSONB NOT NULL,
        created_at TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        PRIMARY KEY (issuer, client_id)
      );
      CREATE TABLE IF NOT EXISTS ${n.ltiDeployments} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        organization TEXT,
        PRIMARY KEY (issuer, client_id, deployment_id),
        FOREIGN KEY (issuer, client_id) REFERENCES ${n.ltiRegistrations} (issuer, client_id) ON DELETE CASCADE
      );`,
  },
  {
    version: 7,
    description: "each student's latest launch outcome per exam, kept as launches are written (the live view counts it instead of grouping the history)",
    // Filled from the launch history once; then each write upserts it (addLaunches).
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.launchLatest} (
        organization TEXT NOT NULL,
        kind TEXT NOT NULL,
        exam_id TEXT NOT NULL,
        student_id TEXT NOT NULL,
        at_ms BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        outcome TEXT NOT NULL,
        PRIMARY KEY (organization, kind, exam_id, student_id)
      );
      CREATE INDEX IF NOT EXISTS ${n.index("launch_latest_expiry")} ON ${n.launchLatest} (at_ms);
      INSERT INTO ${n.launchLatest} (organization, kind, exam_id, student_id, at_ms, seq, outcome)
        SELECT DISTINCT ON (organization, kind, exam_id, student_id) organization, kind, exam_id, student_id, at_ms, seq, outcome
        FROM ${n.launches} ORDER BY organization, kind, exam_id, student_id, at_ms DESC, seq DESC
      ON CONFLICT DO NOTHING;`,
  },
  {
    version: 8,
    description: "LTI course binding: the classes each LMS course is linked to, and the exams a copied course's links open",
    // A course is (issuer, client_id, deployment_id, context_id) within an organization.
    // The learner's check reads one link by its whole key (the primary key); canLink reads a class's links.
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.ltiCourseLinks} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        class_id TEXT NOT NULL,
        linked_by TEXT NOT NULL,
        linked_at TEXT NOT NULL,
        PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, class_id)
      );
      CREATE INDEX IF NOT EXISTS ${n.index("lti_course_links_by_class")} ON ${n.ltiCourseLinks} (organization, class_id, seq);
      CREATE TABLE IF NOT EXISTS ${n.ltiExamCopies} (
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        from_exam_id TEXT NOT NULL,
        to_exam_id TEXT NOT NULL,
        PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, from_exam_id)
      );`,
  },  {
    version: 10,
    description: "LTI gradebook (AGS): the line item per exam and LMS course, and the score outbox",
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.ltiLineItems} (
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        exam_id TEXT NOT NULL,
        url TEXT NOT NULL,
        PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, kind, exam_id)
      );
      CREATE TABLE IF NOT EXISTS ${n.ltiScores} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        id TEXT PRIMARY KEY,
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
        next_ms BIGINT NOT NULL,
        queued_ms BIGINT NOT NULL,
        sent_at TEXT,
        last_error TEXT
      );
      CREATE INDEX IF NOT EXISTS ${n.index("lti_scores_due")} ON ${n.ltiScores} (state, next_ms);
      CREATE INDEX IF NOT EXISTS ${n.index("lti_scores_by_learner")} ON ${n.ltiScores} (organization, kind, exam_id, user_id, seq);`,
  },
];

/**
 * Deletion is final: an upsert never clears deleted_at, and a child written under a
 * deleted parent takes the parent's deleted_at. The child locks its parent row FOR SHARE
 * so a concurrent deleteCourse either waits for it (and then sees the child) or runs
 * first (and the child sees the parent gone); it never slips between the two.
 *
 * $1 is always the organization, and every statement names it: a lookup, a parent, a
 * cascade never crosses organizations.
 */
export function queries(n: Names) {
  const upsert = (columns: string[]) =>
    `ON CONFLICT (organization, id) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(", ")},
      deleted_at = coalesce(cur.deleted_at, EXCLUDED.deleted_at)`;
  const shared = ["name", "data", "created_at", "created_ms"];
  const select = (extra: string) => `SELECT id, ${extra} name, data, created_at FROM`;
  return {
    // $1 organization, $2 id, $3 name, $4 data, $5 created_at, $6 created_ms, then each record's own.
    putCourse: `INSERT INTO ${n.courses} AS cur (organization, id, name, data, created_at, created_ms) VALUES ($1, $2, $3, $4::jsonb, $5, $6)
      ${upsert(shared)}`,
    putClass: `WITH parent AS (SELECT deleted_at FROM ${n.courses} WHERE organization = $1 AND id = $7 FOR SHARE)
      INSERT INTO ${n.classes} AS cur (organization, id, name, data, created_at, created_ms, course_id, deleted_at)
      VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, (SELECT deleted_at FROM parent))
      ${upsert([...shared, "course_id"])}`,
    // The class row when the store knows the class (its deleted_at already reflects its
    // course), else the course row: one lock per write, so no lock-order deadlocks.
    putAssessment: `WITH cls AS (SELECT course_id, deleted_at FROM ${n.classes} WHERE organization = $1 AND id = $7 FOR SHARE),
        crs AS (SELECT deleted_at FROM ${n.courses} WHERE organization = $1 AND id = $8 AND NOT EXISTS (SELECT 1 FROM cls) FOR SHARE)
      INSERT INTO ${n.assessments} AS cur (organization, id, name, data, created_at, created_ms, class_id, course_id, kind, deleted_at)
      VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, coalesce($8, (SELECT course_id FROM cls)), $9,
        coalesce((SELECT deleted_at FROM cls), (SELECT deleted_at FROM crs)))
      ${upsert([...shared, "class_id", "course_id", "kind"])}`,
    getCourse: `${select("")} ${n.courses} WHERE organization = $1 AND id = $2 AND deleted_at IS NULL`,
    listCourses: `${select("")} ${n.courses} WHERE organization = $1 AND deleted_at IS NULL ORDER BY created_ms, seq`,
    getClass: `${select("course_id,")} ${n.classes} WHERE organization = $1 AND id = $2 AND deleted_at IS NULL`,
    listClasses: `${select("course_id,")} ${n.classes} WHERE organization = $1 AND course_id = $2 AND deleted_at IS NULL ORDER BY created_ms, seq`,
    getAssessment: `${select("kind, class_id, course_id,")} ${n.assessments} WHERE organization = $1 AND id = $2 AND deleted_at IS NULL`,
    listAssessments: `${select("kind, class_id, course_id,")} ${n.assessments}
      WHERE organization = $1 AND class_id = $2 AND kind = $3 AND deleted_at IS NULL ORDER BY created_ms, seq`,
    // The class, then its exams: two statements in one transaction, as for a course.
    deleteClass: [
      `UPDATE ${n.classes} SET deleted_at = now() WHERE organization = $1 AND id = $2 AND deleted_at IS NULL`,
      `UPDATE ${n.assessments} SET deleted_at = now() WHERE organization = $1 AND class_id = $2 AND deleted_at IS NULL`,
    ],
    deleteAssessment: `UPDATE ${n.assessments} SET deleted_at = now() WHERE organization = $1 AND id = $2 AND deleted_at IS NULL`,
    // Three statements in one transaction, not one statement: each takes a fresh snapshot
    // after the previous one's row locks, so it sees children committed while it waited.
    deleteCourse: [
      `UPDATE ${n.courses} SET deleted_at = now() WHERE organization = $1 AND id = $2 AND deleted_at IS NULL`,
      `UPDATE ${n.classes} SET deleted_at = now() WHERE organization = $1 AND course_id = $2 AND deleted_at IS NULL`,
      // Through the class as well: an assessment stored before its class has no course_id.
      `UPDATE ${n.assessments} SET deleted_at = now() WHERE organization = $1 AND deleted_at IS NULL
        AND (course_id = $2 OR class_id IN (SELECT id FROM ${n.classes} WHERE organization = $1 AND course_id = $2))`,
    ],
    // $1 organization, $2 user, $3 key, $4 records expire before, $5 a pending claim is dead before.
    // Expired records go whatever their organization (one expiry for all); a stale claim only for this key.
    purgeIdempotent: `DELETE FROM ${n.idempotency} WHERE started_ms < $4
      OR (organization = $1 AND user_id = $2 AND key = $3 AND state = 'pending' AND started_ms < $5)`,
    // RETURNING tells the winner: a loser's row is not inserted (the primary key), so nothing returns.
    claimIdempotent: `INSERT INTO ${n.idempotency} (organization, user_id, key, body_hash, state, started_ms)
      VALUES ($1, $2, $3, $4, 'pending', $5) ON CONFLICT (organization, user_id, key) DO NOTHING RETURNING 1 AS claimed`,
    readIdempotent: `SELECT body_hash AS "bodyHash", state, status, body, started_ms::float8 AS "startedMs"
      FROM ${n.idempotency} WHERE organization = $1 AND user_id = $2 AND key = $3`,
    completeIdempotent: `UPDATE ${n.idempotency} SET state = 'done', status = $4, body = $5
      WHERE organization = $1 AND user_id = $2 AND key = $3 AND state = 'pending'`,
    abandonIdempotent: `DELETE FROM ${n.idempotency} WHERE organization = $1 AND user_id = $2 AND key = $3 AND state = 'pending'`,
    // One statement per batch: each column as an array, zipped back into rows by unnest.
    // With each student's latest record upserted from what was inserted: a record replaces
    // it unless a later one (by at_ms, then seq) is there already (another instance's).
    addLaunches: `WITH added AS (
        INSERT INTO ${n.launches} (organization, kind, exam_id, at_ms, outcome, status, served_by, via, student_id, student_email, instance)
        SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
        RETURNING organization, kind, exam_id, student_id, at_ms, seq, outcome)
      INSERT INTO ${n.launchLatest} AS latest (organization, kind, exam_id, student_id, at_ms, seq, outcome)
        SELECT DISTINCT ON (kind, exam_id, student_id) organization, kind, exam_id, student_id, at_ms, seq, outcome
        FROM added ORDER BY kind, exam_id, student_id, at_ms DESC, seq DESC
      ON CONFLICT (organization, kind, exam_id, student_id) DO UPDATE SET at_ms = excluded.at_ms, seq = excluded.seq, outcome = excluded.outcome
        WHERE (excluded.at_ms, excluded.seq) > (latest.at_ms, latest.seq)`,
    // $2 kind, $3 exam, $4 outcome or NULL, $5 student or NULL, $6/$7 the cursor's (at_ms, seq) or NULL, $8 rows.
    listLaunches: `SELECT seq::float8 AS seq, kind, exam_id, at_ms::float8 AS at_ms, outcome, status, served_by, via, student_id, student_email, instance
      FROM ${n.launches} WHERE organization = $1 AND kind = $2 AND exam_id = $3
        AND ($4::text IS NULL OR outcome = $4) AND ($5::text IS NULL OR student_id = $5 OR student_email = $5)
        AND ($6::bigint IS NULL OR (at_ms, seq) < ($6::bigint, $7::bigint))
      ORDER BY at_ms DESC, seq DESC LIMIT $8`,
    // $2 kind, $3 exam, $4 since (ms).
    countLaunches: `SELECT outcome, count(*)::int AS n FROM ${n.launches}
      WHERE organization = $1 AND kind = $2 AND exam_id = $3 AND at_ms >= $4 GROUP BY outcome`,
    // One row per student: a student whose latest record is older than `since` has none since.
    countLatestLaunches: `SELECT outcome, count(*)::int AS n FROM ${n.launchLatest}
      WHERE organization = $1 AND kind = $2 AND exam_id = $3 AND at_ms >= $4 GROUP BY outcome`,
    // A latest record past the retention: every record of that student and exam is too.
    purgeLaunches: `WITH latest AS (DELETE FROM ${n.launchLatest} WHERE at_ms < $1)
      DELETE FROM ${n.launches} WHERE at_ms < $1`,
  };
}

export async function transaction(pool: PostgresPool, work: (client: PostgresPoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    await work(client);
    await client.query("COMMIT");
  } catch (error) {
    // A connection whose ROLLBACK fails is in an unknown state: destroy it, don't pool it.
    await client.query("ROLLBACK").catch((e: Error) => { broken = e; });
    throw error;
  } finally {
    client.release(broken);
  }
}

/** Two instances starting together must not both run CREATE TABLE: one waits for the other. */
export async function migrate(pool: PostgresPool, n: Names, component: string): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('express-oral-assessments'), hashtext($1))", [n.schema]);
    // CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
    const found = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [n.schema]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA "${n.schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${n.version} (
      version INTEGER PRIMARY KEY, description TEXT NOT NULL, migrated_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const rows = (await client.query(`SELECT coalesce(max(version), 0)::int AS version FROM ${n.version}`)).rows as { version: number }[]
    for (const step of pendingMigrations(component, "schema", rows[0]?.version ?? 0, MIGRATIONS)) {
      await client.query(step.up(n));
      await client.query(`INSERT INTO ${n.version} (version, description) VALUES ($1, $2)`, [step.version, step.description]);
    }
  });
}
