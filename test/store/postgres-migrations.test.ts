/**
 * postgresStore's schema and migrations against a real PostgreSQL (postgres-support.ts):
 * several instances migrating a fresh schema at once, the tables' shape, upgrades in place
 * of schemas written by earlier releases, and a newer release's schema refused.
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { MIGRATIONS } from "../../src/store/postgres-migrations.js";
import { names } from "../../src/store/postgres-schema.js";
import { DEFAULT_ORGANIZATION } from "../../src/store/types.js";
import { expectV10ScoresUpgraded, V10_SCORE_ROWS } from "./lti-scores-v10.js";
import { expectV11Upgraded, V11_COURSE } from "./lti-copy-notices-v11.js";
import { expectV12NotesMoved, V12_NOTE_ROWS } from "./lti-notes-v12.js";
import { postgresOrSkip, usePostgres } from "./postgres-support.js";

const ORG = "north";
const reachable = await postgresOrSkip();

describe.runIf(reachable)("postgresStore", () => {
  const { admin, schema, store } = usePostgres();

  /** A schema of this run (`label`) as release `version` left it: every migration up to it, each recorded. */
  async function schemaAt(label: string, version: number) {
    const old = schema(label);
    await admin.query(`CREATE SCHEMA "${old}"`);
    const n = names(old, "oral_");
    await admin.query(`CREATE TABLE ${n.version} (version INTEGER PRIMARY KEY, description TEXT NOT NULL, migrated_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    for (const step of MIGRATIONS.filter((m) => m.version <= version)) {
      await admin.query(step.up(n));
      await admin.query(`INSERT INTO ${n.version} (version, description) VALUES ($1, $2)`, [step.version, step.description]);
    }
    return { old, n };
  }

  describe("schema and migration", () => {
    it("lets several instances migrate a fresh schema at once: one migrates, the others wait and use it", async () => {
      const fresh = schema("race");
      const stores = Array.from({ length: 5 }, () => store({ schema: fresh }));
      try {
        await Promise.all(stores.map((s) => s.init()));
        const versions = await admin.query(`SELECT version FROM "${fresh}".oral_schema_version`);
        expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }, { version: 8 }, { version: 9 }, { version: 10 }, { version: 11 }, { version: 12 }, { version: 13 }]);
        await stores[0]?.putCourse(ORG, { id: "c1", name: "C", data: {}, createdAt: new Date().toISOString() });
        expect(await stores[4]?.getCourse(ORG, "c1")).toBeDefined();
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("creates prefixed tables with a JSONB data column, and list indexes", async () => {
      const fresh = schema("shape");
      const s = store({ schema: fresh });
      await s.init();
      await s.close();
      const columns = await admin.query(
        "SELECT table_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'data' ORDER BY table_name", [fresh]);
      expect(columns.rows).toEqual([
        { table_name: "oral_assessments", data_type: "jsonb" },
        { table_name: "oral_classes", data_type: "jsonb" },
        { table_name: "oral_courses", data_type: "jsonb" },
        { table_name: "oral_lti_registrations", data_type: "jsonb" },
      ]);
      const indexes = await admin.query("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%\\_by\\_%' ORDER BY 1", [fresh]);
      expect(indexes.rows.map((r) => r.indexname)).toEqual([
        "oral_assessments_by_class", "oral_assessments_by_course", "oral_classes_by_course", "oral_courses_by_created", "oral_launches_by_exam",
        "oral_lti_course_links_by_class", "oral_lti_scores_by_learner",
      ]);
    });

    it("upgrades a version-3 schema (before organizations) in place: every row into organization default", async () => {
      const old = schema("v3");
      const t = (name: string) => `"${old}".oral_${name}`;
      // The tables exactly as version 3 left them, written out here rather than taken from
      // the store's migrations, so a change to a released step cannot quietly change this fixture.
      await admin.query(`CREATE SCHEMA "${old}";
        CREATE TABLE ${t("schema_version")} (version INTEGER PRIMARY KEY, description TEXT NOT NULL, migrated_at TIMESTAMPTZ NOT NULL DEFAULT now());
        INSERT INTO ${t("schema_version")} (version, description) VALUES (1, 'v1'), (2, 'v2'), (3, 'v3');
        CREATE TABLE ${t("courses")} (seq BIGINT GENERATED ALWAYS AS IDENTITY, id TEXT PRIMARY KEY, name TEXT NOT NULL, data JSONB NOT NULL,
          created_at TEXT NOT NULL, created_ms BIGINT NOT NULL, deleted_at TIMESTAMPTZ);
        CREATE TABLE ${t("classes")} (seq BIGINT GENERATED ALWAYS AS IDENTITY, id TEXT PRIMARY KEY, course_id TEXT NOT NULL, name TEXT NOT NULL,
          data JSONB NOT NULL, created_at TEXT NOT NULL, created_ms BIGINT NOT NULL, deleted_at TIMESTAMPTZ);
        CREATE TABLE ${t("assessments")} (seq BIGINT GENERATED ALWAYS AS IDENTITY, id TEXT PRIMARY KEY, class_id TEXT NOT NULL, course_id TEXT,
          name TEXT NOT NULL, data JSONB NOT NULL, created_at TEXT NOT NULL, created_ms BIGINT NOT NULL, deleted_at TIMESTAMPTZ,
          kind TEXT NOT NULL DEFAULT 'oral' CHECK (kind IN ('oral', 'roleplay')));
        CREATE INDEX oral_courses_by_created ON ${t("courses")} (created_ms, seq) WHERE deleted_at IS NULL;
        CREATE INDEX oral_classes_by_course ON ${t("classes")} (course_id, created_ms, seq) WHERE deleted_at IS NULL;
        CREATE INDEX oral_assessments_by_course ON ${t("assessments")} (course_id) WHERE deleted_at IS NULL;
        CREATE INDEX oral_assessments_by_class ON ${t("assessments")} (class_id, kind, created_ms, seq) WHERE deleted_at IS NULL;
        CREATE TABLE ${t("idempotency")} (user_id TEXT NOT NULL, key TEXT NOT NULL, body_hash TEXT NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('pending', 'done')), status INTEGER, body TEXT, started_ms BIGINT NOT NULL,
          PRIMARY KEY (user_id, key));
        CREATE INDEX oral_idempotency_expiry ON ${t("idempotency")} (started_ms);`);
      const at = "2026-01-01T09:00:00.000Z";
      const ms = Date.parse(at);
      // Two courses at the same instant: only seq orders them, and must keep doing so.
      await admin.query(`INSERT INTO ${t("courses")} (id, name, data, created_at, created_ms) VALUES ('c2', 'Second', '{}', $1, $2), ('c1', 'First', '{"x":1}', $1, $2)`, [at, ms]);
      await admin.query(`INSERT INTO ${t("classes")} (id, course_id, name, data, created_at, created_ms, deleted_at)
        VALUES ('k1', 'c1', 'Class', '{}', $1, $2, NULL), ('k2', 'c1', 'Gone', '{}', $1, $2, now())`, [at, ms]);
      await admin.query(`INSERT INTO ${t("assessments")} (id, class_id, course_id, name, data, created_at, created_ms, kind)
        VALUES ('e1', 'k1', 'c1', 'Exam', '{}', $1, $2, 'oral'), ('r1', 'k1', 'c1', 'Play', '{}', $1, $2, 'roleplay')`, [at, ms]);
      await admin.query(`INSERT INTO ${t("idempotency")} (user_id, key, body_hash, state, status, body, started_ms)
        VALUES ('id:u', 'key-1', 'h', 'done', 201, '{"json":1}', $1)`, [Date.now()]);

      const s = store({ schema: old });
      const org = DEFAULT_ORGANIZATION;
      try {
        expect((await s.listCourses(org)).map((c) => c.id)).toEqual(["c2", "c1"]);
        expect(await s.getCourse(org, "c1")).toEqual({ id: "c1", name: "First", data: { x: 1 }, createdAt: at });
        expect((await s.listClasses(org, "c1")).map((c) => c.id)).toEqual(["k1"]);
        expect(await s.getClass(org, "k2")).toBeUndefined(); // deleted stays deleted
        expect(await s.getAssessment(org, "r1")).toMatchObject({ kind: "roleplay", classId: "k1", courseId: "c1" });
        expect((await s.listAssessments(org, "k1")).map((e) => e.id)).toEqual(["e1"]);
        expect(await s.beginIdempotent({ org, user: "id:u", key: "key-1", bodyHash: "h" })).toEqual({ state: "done", status: 201, body: { json: 1 } });
        // Nothing of it belongs to another organization, and the old ids are free there.
        expect(await s.listCourses(ORG)).toEqual([]);
        expect(await s.beginIdempotent({ org: ORG, user: "id:u", key: "key-1", bodyHash: "other" })).toEqual({ state: "new" });
        await s.putCourse(ORG, { id: "c1", name: "North's", data: {}, createdAt: at });
        expect((await s.getCourse(org, "c1"))?.name).toBe("First");
        await s.putCourse(org, { id: "c3", name: "Third", data: {}, createdAt: at });
        expect((await s.listCourses(org)).map((c) => c.id)).toEqual(["c2", "c1", "c3"]);
        await s.deleteCourse(org, "c1");
        expect(await s.getAssessment(org, "r1")).toBeUndefined();
        expect(await s.getCourse(ORG, "c1")).toBeDefined();
        // Through version 5: the launch record is there.
        const launch = { at, kind: "oral" as const, examId: "e1", outcome: "redirected", status: 303, servedBy: "prepared" as const, via: "link" as const, student: { orgInternalId: "u1", email: "u1@x.test" } };
        await s.addLaunches(org, [launch]);
        expect((await s.listLaunches(org, { kind: "oral", examId: "e1", limit: 5 })).records).toEqual([launch]);
      } finally {
        await s.close();
      }
      const versions = await admin.query(`SELECT version FROM ${t("schema_version")} ORDER BY version`);
      expect(versions.rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
      // The organization is in every primary key but the LTI tables' (global: an LMS's registration), and no default is left to catch a write that forgets it.
      const keys = await admin.query(`SELECT c.relname AS table, pg_get_constraintdef(k.oid) AS def FROM pg_constraint k
        JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND k.contype = 'p' AND c.relname <> 'oral_schema_version' ORDER BY 1`, [old]);
      expect(keys.rows).toEqual([
        { table: "oral_assessments", def: "PRIMARY KEY (organization, id)" },
        { table: "oral_classes", def: "PRIMARY KEY (organization, id)" },
        { table: "oral_courses", def: "PRIMARY KEY (organization, id)" },
        { table: "oral_idempotency", def: "PRIMARY KEY (organization, user_id, key)" },
        { table: "oral_launch_latest", def: "PRIMARY KEY (organization, kind, exam_id, student_id)" },
        { table: "oral_launches", def: "PRIMARY KEY (organization, seq)" },
        { table: "oral_lti_course_copy_notices", def: "PRIMARY KEY (issuer, client_id, deployment_id, context_id)" },
        { table: "oral_lti_course_links", def: "PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, class_id)" },
        { table: "oral_lti_course_services", def: "PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id)" },
        { table: "oral_lti_deployments", def: "PRIMARY KEY (issuer, client_id, deployment_id)" },
        { table: "oral_lti_exam_copies", def: "PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, from_exam_id)" },
        { table: "oral_lti_line_items", def: "PRIMARY KEY (organization, issuer, client_id, deployment_id, context_id, kind, exam_id)" },
        { table: "oral_lti_registrations", def: "PRIMARY KEY (issuer, client_id)" },
        { table: "oral_lti_scores", def: "PRIMARY KEY (id)" },
      ]);
      const defaults = await admin.query("SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'organization' AND column_default IS NOT NULL", [old]);
      expect(defaults.rows).toEqual([{ n: 0 }]);
    });

    it("upgrades a version-5 schema in place: launch records kept, LTI registrations written and read", async () => {
      const { old, n } = await schemaAt("v5", 5);
      const at = "2026-01-01T09:00:00.000Z";
      await admin.query(`INSERT INTO ${n.launches} (organization, kind, exam_id, at_ms, outcome, status, served_by, via, student_id, student_email)
        VALUES ('north', 'oral', 'e1', $1, 'redirected', 303, 'prepared', 'lti', 'u1', 'u1@x.test')`, [Date.parse(at)]);
      const s = store({ schema: old });
      try {
        expect((await s.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 5 })).records).toMatchObject([{ at, via: "lti" }]);
        const registration = { issuer: "https://lms.example", clientId: "c1", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks",
          active: false, acceptNewDeployments: true, organization: ORG, data: { x: 1 }, createdAt: at };
        await s.putLtiRegistration(registration);
        expect(await s.putLtiDeployment("https://lms.example", "c1", { id: "d1" })).toBe(true);
        expect(await s.getLtiRegistration("https://lms.example", "c1")).toEqual({ ...registration, deployments: [{ id: "d1" }] });
      } finally {
        await s.close();
      }
      const versions = await admin.query(`SELECT version FROM ${n.version} ORDER BY version`);
      expect(versions.rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    });

    it("upgrades a version-10 schema in place: each learner's first pending score becomes their head, each score gets its LMS", async () => {
      const { old, n } = await schemaAt("v10", 10);
      for (const r of V10_SCORE_ROWS) {
        await admin.query(`INSERT INTO ${n.ltiScores} (id, organization, kind, exam_id, user_id, issuer, entry, state, next_ms, queued_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [...r]);
      }
      const s = store({ schema: old });
      try {
        await expectV10ScoresUpgraded(s);
      } finally {
        await s.close();
      }
    });

    it("upgrades a version-11 schema in place: its course links kept, copy notices written and read", async () => {
      const { old, n } = await schemaAt("v11", 11);
      await admin.query(`INSERT INTO ${n.ltiCourseLinks} (organization, issuer, client_id, deployment_id, context_id, class_id, linked_by, linked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [ORG, ...Object.values(V11_COURSE), "class-1", "ines", "2026-11-01T09:00:00.000Z"]);
      const s = store({ schema: old });
      try {
        await expectV11Upgraded(s, ORG);
        expect((await admin.query(`SELECT max(version)::int AS v FROM ${n.version}`)).rows[0].v).toBe(13);
      } finally {
        await s.close();
      }
    });

    it("upgrades a version-12 schema in place: a sent entry's note moves from last_error to its own column; errors stay", async () => {
      const { old, n } = await schemaAt("v12", 12);
      for (const r of V12_NOTE_ROWS) {
        await admin.query(`INSERT INTO ${n.ltiScores} (id, organization, kind, exam_id, user_id, issuer, entry, state, next_ms, queued_ms, last_error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [...r]);
      }
      const s = store({ schema: old });
      try {
        await expectV12NotesMoved(s);
        expect((await admin.query(`SELECT max(version)::int AS v FROM ${n.version}`)).rows[0].v).toBe(13);
      } finally {
        await s.close();
      }
    });

    it("refuses a schema written by a newer release, with a ConfigurationError naming the fix", async () => {
      const fresh = schema("future");
      await store({ schema: fresh }).init().then(() => undefined);
      await admin.query(`INSERT INTO "${fresh}".oral_schema_version (version, description) VALUES (99, 'from the future')`);
      const s = store({ schema: fresh });
      const error = await s.init().catch((e: unknown) => e);
      await s.close();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(String(error)).toMatch(/version 99.*Upgrade/s);
    });
  });
});
