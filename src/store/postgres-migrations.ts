/**
 * The PostgreSQL store's schema steps, oldest first, and the step runner: a new step is
 * appended at the end of MIGRATIONS (see migrations.ts: a released step never changes).
 * Versions are rows of the `schema_version` table.
 */
import type { PostgresPool } from "./postgres-pool.js";
import { pendingMigrations, type Migration } from "./migrations.js";
import { EARLY_MIGRATIONS } from "./postgres-migrations-early.js";
import { transaction, type Names } from "./postgres-schema.js";

export const MIGRATIONS: readonly Migration<(n: Names) => string>[] = [
  ...EARLY_MIGRATIONS,
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
  },
  {
    version: 9,
    description: "LTI Advantage: each LMS course's service endpoints (NRPS memberships URL, AGS endpoint claim) as its last launch carried them",
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.ltiCourseServices} (
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        memberships_url TEXT,
        ags_endpoint TEXT,
        seen_at TEXT NOT NULL,
        PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id)
      );`,
  },
  {
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
  {
    version: 11,
    description: "LTI score outbox: each learner's head, the LMS (lane) and replace key (status and course) of each entry, for claims that cost the same at any size",
    // As SQLite's step 11: a claim reads the partial index of heads only.
    up: (n) => `
      ALTER TABLE ${n.ltiScores} ADD COLUMN IF NOT EXISTS lane TEXT NOT NULL DEFAULT '';
      ALTER TABLE ${n.ltiScores} ADD COLUMN IF NOT EXISTS replace_key TEXT NOT NULL DEFAULT '';
      ALTER TABLE ${n.ltiScores} ADD COLUMN IF NOT EXISTS head SMALLINT NOT NULL DEFAULT 0;
      UPDATE ${n.ltiScores} SET replace_key = concat_ws(chr(31), ${["score,activityProgress", "score,gradingProgress", "key,issuer", "key,clientId", "key,deploymentId", "key,contextId"]
        .map((f) => `entry::jsonb #>> '{${f}}'`).join(", ")}),
        lane = lower(coalesce(substring(coalesce(entry::jsonb #>> '{ags,lineItem}', entry::jsonb #>> '{ags,lineItems}') from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+'), ''));
      UPDATE ${n.ltiScores} s SET head = 1 WHERE s.state = 'pending' AND s.seq = (SELECT min(p.seq) FROM ${n.ltiScores} p WHERE p.organization = s.organization
        AND p.kind = s.kind AND p.exam_id = s.exam_id AND p.user_id = s.user_id AND p.state = 'pending');
      DROP INDEX IF EXISTS "${n.schema}".${n.index("lti_scores_by_learner")};
      CREATE INDEX IF NOT EXISTS ${n.index("lti_scores_by_learner")} ON ${n.ltiScores} (organization, kind, exam_id, user_id, state, seq);
      CREATE INDEX IF NOT EXISTS ${n.index("lti_scores_heads")} ON ${n.ltiScores} (next_ms, lane) WHERE head = 1;`,
  },
  {
    version: 12,
    description: "LTI course copy notices (Platform Notification Service): per new LMS course, the course it was copied from",
    up: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.ltiCourseCopyNotices} (
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        origin_context_id TEXT,
        notice_id TEXT NOT NULL,
        noticed_at TEXT NOT NULL,
        PRIMARY KEY (issuer, client_id, deployment_id, context_id)
      );`,
  },
  {
    version: 13,
    description: "LTI score outbox: each entry's note (what the gradebook learned from the LMS, a JSON object) in a column of its own; last_error holds errors only",
    // As SQLite's step 13. Version 12 wrote a sent entry's note with JSON.stringify, so a JSON
    // object is a last_error starting with '{' (PostgreSQL 15 has no IS JSON to test it first).
    up: (n) => `
      ALTER TABLE ${n.ltiScores} ADD COLUMN IF NOT EXISTS note TEXT;
      UPDATE ${n.ltiScores} SET note = CASE WHEN left(last_error, 1) = '{' THEN last_error END, last_error = NULL
        WHERE state = 'sent' AND last_error IS NOT NULL;`,
  },
];

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
