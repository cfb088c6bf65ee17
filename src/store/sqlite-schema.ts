/**
 * The statements that read and write the SQLite store's tables (the tables themselves:
 * sqlite-migrations.ts). Kept apart from `sqlite.ts` (the store's behaviour) so each stays one concern.
 */
import { LAUNCH_COLUMNS, LAUNCH_PARAMS } from "./launch-rows.js";

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
  // The launch record's columns come from its field table (launch-fields.ts), named parameters by column.
  addLaunch: `INSERT INTO launches (organization, ${LAUNCH_COLUMNS}) VALUES (@org, ${LAUNCH_PARAMS})`,
  // Unset filters are NULL; the cursor is the last row's (at_ms, seq), read one past the page.
  listLaunches: `SELECT seq, ${LAUNCH_COLUMNS} FROM launches
    WHERE organization = @org AND kind = @kind AND exam_id = @examId
      AND (@outcome IS NULL OR outcome = @outcome)
      AND (@student IS NULL OR student_id = @student OR student_email = @student)
      AND (@cursorAt IS NULL OR at_ms < @cursorAt OR (at_ms = @cursorAt AND seq < @cursorSeq))
    ORDER BY at_ms DESC, seq DESC LIMIT @limit`,
  countLaunches: `SELECT outcome, count(*) AS n FROM launches
    WHERE organization = @org AND kind = @kind AND exam_id = @examId AND at_ms >= @since GROUP BY outcome`,
  // A record replaces the student's latest unless an already written one is later (by at_ms, then seq).
  addLatestLaunch: `INSERT INTO launch_latest (organization, kind, exam_id, student_id, at_ms, seq, outcome)
    VALUES (@org, @kind, @exam_id, @student_id, @at_ms, @seq, @outcome)
    ON CONFLICT (organization, kind, exam_id, student_id) DO UPDATE SET at_ms = excluded.at_ms, seq = excluded.seq, outcome = excluded.outcome
    WHERE excluded.at_ms > launch_latest.at_ms OR (excluded.at_ms = launch_latest.at_ms AND excluded.seq > launch_latest.seq)`,
  // One row per student: a student whose latest record is older than `since` has none since.
  countLatestLaunches: `SELECT outcome, count(*) AS n FROM launch_latest
    WHERE organization = @org AND kind = @kind AND exam_id = @examId AND at_ms >= @since GROUP BY outcome`,
  purgeLaunches: "DELETE FROM launches WHERE at_ms < @before",
  // A latest record past the retention: every record of that student and exam is too.
  purgeLatestLaunches: "DELETE FROM launch_latest WHERE at_ms < @before",
} as const;
