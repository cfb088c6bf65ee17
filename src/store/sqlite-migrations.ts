/**
 * The SQLite store's schema steps, oldest first: a new step is appended at the end of
 * MIGRATIONS (see migrations.ts: a released step never changes).
 */
import type { Migration } from "./migrations.js";
import { EARLY_MIGRATIONS } from "./sqlite-migrations-early.js";

/** The origin (scheme://host[:port]) of the URL `u` (an SQL expression), as `new URL(u).origin` gives it for an AGS URL. */
function sqliteOrigin(u: string): string {
  const rest = `substr(${u}, instr(${u}, '://') + 3)`;
  return `CASE WHEN instr(${u}, '://') = 0 THEN '' WHEN instr(${rest}, '/') = 0 THEN lower(${u})
    ELSE lower(substr(${u}, 1, instr(${u}, '://') + 1 + instr(${rest}, '/'))) END`;
}

/** Versions live in `PRAGMA user_version`: no extra table, and it is read in the same transaction. */
export const MIGRATIONS: readonly Migration<string>[] = [
  ...EARLY_MIGRATIONS,
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
  },
  {
    version: 9,
    description: "LTI Advantage: each LMS course's service endpoints (NRPS memberships URL, AGS endpoint claim) as its last launch carried them",
    up: `
      CREATE TABLE lti_course_services (
        organization TEXT NOT NULL,
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        memberships_url TEXT,
        ags_endpoint TEXT,
        seen_at TEXT NOT NULL,
        PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id)
      ) WITHOUT ROWID;
    `,
  },
  {
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
  {
    version: 11,
    description: "LTI score outbox: each learner's head, the LMS (lane) and replace key (status and course) of each entry, for claims that cost the same at any size",
    // Only a learner's first pending entry (head = 1) is claimable: a claim reads the partial
    // index of heads, never a learner's sent rows. The lane is the origin of the AGS URL (the
    // outbox skips an LMS that is paused or busy); replace_key (status and LMS course) lets a newer entry supersede.
    up: `
      ALTER TABLE lti_scores ADD COLUMN lane TEXT NOT NULL DEFAULT '';
      ALTER TABLE lti_scores ADD COLUMN replace_key TEXT NOT NULL DEFAULT '';
      ALTER TABLE lti_scores ADD COLUMN head INTEGER NOT NULL DEFAULT 0;
      UPDATE lti_scores SET replace_key = ${["score.activityProgress", "score.gradingProgress", "key.issuer", "key.clientId", "key.deploymentId", "key.contextId"]
        .map((f) => `json_extract(entry, '$.${f}')`).join(" || char(31) || ")},
        lane = ${sqliteOrigin("COALESCE(json_extract(entry, '$.ags.lineItem'), json_extract(entry, '$.ags.lineItems'), '')")};
      UPDATE lti_scores SET head = 1 WHERE state = 'pending' AND seq = (SELECT MIN(p.seq) FROM lti_scores p WHERE p.organization = lti_scores.organization
        AND p.kind = lti_scores.kind AND p.exam_id = lti_scores.exam_id AND p.user_id = lti_scores.user_id AND p.state = 'pending');
      DROP INDEX lti_scores_by_learner;
      CREATE INDEX lti_scores_by_learner ON lti_scores (organization, kind, exam_id, user_id, state, seq);
      CREATE INDEX lti_scores_heads ON lti_scores (next_ms, lane) WHERE head = 1;
    `,
  },
  {
    version: 12,
    description: "LTI course copy notices (Platform Notification Service): per new LMS course, the course it was copied from",
    up: `
      CREATE TABLE lti_course_copy_notices (
        issuer TEXT NOT NULL,
        client_id TEXT NOT NULL,
        deployment_id TEXT NOT NULL,
        context_id TEXT NOT NULL,
        origin_context_id TEXT,
        notice_id TEXT NOT NULL,
        noticed_at TEXT NOT NULL,
        PRIMARY KEY (issuer, client_id, deployment_id, context_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 13,
    description: "LTI score outbox: each entry's note (what the gradebook learned from the LMS, a JSON object) in a column of its own; last_error holds errors only",
    // Version 12 kept a sent entry's note in last_error (as a JSON object; a sent entry has no
    // error): moved here. Any other last_error of a sent entry was never shown, and goes.
    up: `
      ALTER TABLE lti_scores ADD COLUMN note TEXT;
      UPDATE lti_scores SET note = CASE WHEN json_valid(last_error) THEN CASE WHEN json_type(last_error) = 'object' THEN json(last_error) END END,
        last_error = NULL WHERE state = 'sent' AND last_error IS NOT NULL;
    `,
  },
];
