/**
 * The tables of the PostgreSQL store: their names and the statements that read and write
 * them (the steps that create them: postgres-migrations.ts). Names are built from the
 * validated `schema` and `tablePrefix` options (lower-case identifiers only), never from
 * record values: every value travels as a query parameter.
 */
import type { PostgresPool, PostgresPoolClient } from "./postgres-pool.js";
import { LAUNCH_COLUMNS, LAUNCH_PG_SELECT, launchPgArrays } from "./launch-rows.js";

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
  ltiCourseServices: string;
  ltiCourseCopyNotices: string;
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
    ltiCourseServices: table("lti_course_services"),
    ltiCourseCopyNotices: table("lti_course_copy_notices"),
    ltiLineItems: table("lti_line_items"),
    ltiScores: table("lti_scores"),
    index: (name) => `"${prefix}${name}"`,
  };
}


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
    // own course); the course row when the store does not, or when the caller names
    // another course than the class's (a deleted one hides the exam, as in SQLite and
    // memory). Class before course, as deleteCourse's cascade never waits on a class
    // while holding another course: no lock-order deadlock.
    putAssessment: `WITH cls AS (SELECT course_id, deleted_at FROM ${n.classes} WHERE organization = $1 AND id = $7 FOR SHARE),
        crs AS (SELECT deleted_at FROM ${n.courses} WHERE organization = $1 AND id = $8
          AND NOT EXISTS (SELECT 1 FROM cls WHERE cls.course_id = $8) FOR SHARE)
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
        INSERT INTO ${n.launches} (organization, ${LAUNCH_COLUMNS}) SELECT $1, * FROM unnest(${launchPgArrays(2)})
        RETURNING organization, kind, exam_id, student_id, at_ms, seq, outcome)
      INSERT INTO ${n.launchLatest} AS latest (organization, kind, exam_id, student_id, at_ms, seq, outcome)
        SELECT DISTINCT ON (kind, exam_id, student_id) organization, kind, exam_id, student_id, at_ms, seq, outcome
        FROM added ORDER BY kind, exam_id, student_id, at_ms DESC, seq DESC
      ON CONFLICT (organization, kind, exam_id, student_id) DO UPDATE SET at_ms = excluded.at_ms, seq = excluded.seq, outcome = excluded.outcome
        WHERE (excluded.at_ms, excluded.seq) > (latest.at_ms, latest.seq)`,
    // $2 kind, $3 exam, $4 outcome or NULL, $5 student or NULL, $6/$7 the cursor's (at_ms, seq) or NULL, $8 rows.
    listLaunches: `SELECT seq::float8 AS seq, ${LAUNCH_PG_SELECT}
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
