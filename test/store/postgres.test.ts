/**
 * postgresStore against a real PostgreSQL (default postgres://postgres@127.0.0.1:5432/test,
 * or EOA_TEST_POSTGRES_URL). Every run works in its own schemas, dropped at the end.
 * With no server: CI fails this file; elsewhere it is skipped with a loud warning.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { postgresStore, type PostgresStoreOptions } from "../../src/store/postgres.js";
import { MIGRATIONS } from "../../src/store/postgres-migrations.js";
import { names } from "../../src/store/postgres-schema.js";
import { DEFAULT_ORGANIZATION, type OralStore } from "../../src/store/types.js";
import { describeStoreContract } from "./store-contract.js";

const ORG = "north";
const url = process.env.EOA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The URL as printed: a password set through the environment stays out of the log. */
const shown = url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
const run = `eoa_test_${randomBytes(4).toString("hex")}`;
const schemas = new Set<string>();
/** A schema of this run: unique, and dropped in afterAll. */
const schema = (suffix = "") => {
  const name = suffix ? `${run}_${suffix}` : run;
  schemas.add(name);
  return name;
};

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = await probe();
if (unreachable !== undefined && process.env.CI) {
  describe("postgresStore", () => {
    it("needs a reachable PostgreSQL in CI", () => {
      throw new Error(`PostgreSQL at ${shown} is unreachable (${unreachable}); CI must run the PostgreSQL store tests. Start a postgres service on 127.0.0.1:5432 with a "test" database.`);
    });
  });
} else if (unreachable !== undefined) {
  console.warn([
    "",
    "!".repeat(78),
    `!!! SKIPPING the postgresStore tests: no PostgreSQL at ${shown}`,
    `!!! (${unreachable})`,
    "!!! Start it with:  pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    "!!! or point EOA_TEST_POSTGRES_URL at a server. In CI (CI set) this is a failure.",
    "!".repeat(78),
    "",
  ].join("\n"));
}

describe.runIf(unreachable === undefined)("postgresStore", () => {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(async () => {
    for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    await admin.end();
  });
  const store = (options: Partial<PostgresStoreOptions> = {}) => postgresStore({ connectionString: url, ...options });

  describeStoreContract("postgresStore", (place) => store({ schema: schema(), tablePrefix: `${place}_` }), { persistent: true });

  describe("schema and migration", () => {
    it("lets several instances migrate a fresh schema at once: one migrates, the others wait and use it", async () => {
      const fresh = schema("race");
      const stores = Array.from({ length: 5 }, () => store({ schema: fresh }));
      try {
        await Promise.all(stores.map((s) => s.init()));
        const versions = await admin.query(`SELECT version FROM "${fresh}".oral_schema_version`);
        expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }, { version: 8 }, { version: 9 }, { version: 10 }]);
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
      expect(versions.rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
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
      const old = schema("v5");
      await admin.query(`CREATE SCHEMA "${old}"`);
      const n = names(old, "oral_");
      await admin.query(`CREATE TABLE ${n.version} (version INTEGER PRIMARY KEY, description TEXT NOT NULL, migrated_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      for (const step of MIGRATIONS.filter((m) => m.version <= 5)) {
        await admin.query(step.up(n));
        await admin.query(`INSERT INTO ${n.version} (version, description) VALUES ($1, $2)`, [step.version, step.description]);
      }
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
      expect(versions.rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
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

  describe("pools", () => {
    const connections = async (app: string) =>
      Number((await admin.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", [app])).rows[0].count);

    it("ends the pool it created from connectionString on close()", async () => {
      const app = `${run}_owned`;
      const s = postgresStore({ connectionString: `${url}?application_name=${app}`, schema: schema(), tablePrefix: "owned_" });
      await s.listCourses(ORG);
      expect(await connections(app)).toBeGreaterThan(0);
      await s.close();
      await expect.poll(() => connections(app)).toBe(0);
    });

    it("leaves a pool it was given open on close()", async () => {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        const s = postgresStore({ pool, schema: schema(), tablePrefix: "borrowed_" });
        await s.putCourse(ORG, { id: "c1", name: "C", data: {}, createdAt: new Date().toISOString() });
        await s.close();
        expect((await pool.query("SELECT 1 AS ok")).rows).toEqual([{ ok: 1 }]);
      } finally {
        await pool.end();
      }
    });

    it("fails init() on an unreachable server without echoing the password, and can retry", async () => {
      const s = postgresStore({ connectionString: "postgres://someone:hunter2secret@127.0.0.1:1/none" });
      const error = await s.init().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(String(error)).not.toContain("hunter2secret");
      await expect(s.init()).rejects.toThrow(); // retried, not a cached rejection
      await s.close();
    });
  });

  describe("failures", () => {
    const createdAt = new Date().toISOString();

    it("rolls a failed migration back entirely, and init() succeeds once the cause is gone", async () => {
      const where = schema("badmig");
      // A table of the same name but another shape: the migration's CREATE INDEX on it fails.
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${where}"`);
      await admin.query(`CREATE TABLE "${where}".oral_courses (x INT)`);
      const s = store({ schema: where });
      try {
        await expect(s.init()).rejects.toThrow(/created_ms|column/);
        // Nothing half-done: no version recorded, none of the other tables created.
        const tables = await admin.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [where]);
        expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(["oral_courses"]);
        await admin.query(`DROP TABLE "${where}".oral_courses`);
        await expect(s.init()).resolves.toBeUndefined();
        await s.putCourse(ORG, { id: "c1", name: "C", data: {}, createdAt });
        expect(await s.getCourse(ORG, "c1")).toBeDefined();
      } finally {
        await s.close();
      }
    });

    it("rolls deleteCourse back when a step fails: the course and its classes stay visible", async () => {
      const where = schema("rollback");
      const s = store({ schema: where });
      try {
        await s.putCourse(ORG, { id: "c1", name: "C", data: {}, createdAt });
        await s.putClass(ORG, { id: "k1", courseId: "c1", name: "K", data: {}, createdAt });
        await s.putAssessment(ORG, { id: "e1", classId: "k1", courseId: undefined, name: "E", data: {}, createdAt });
        // The third statement (assessments) fails after the first two ran.
        await admin.query(`CREATE FUNCTION "${where}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by test'; END $$`);
        await admin.query(`CREATE TRIGGER refuse BEFORE UPDATE ON "${where}".oral_assessments FOR EACH ROW EXECUTE FUNCTION "${where}".refuse()`);
        await expect(s.deleteCourse(ORG, "c1")).rejects.toThrow(/refused by test/);
        expect(await s.getCourse(ORG, "c1")).toBeDefined();
        expect(await s.getClass(ORG, "k1")).toBeDefined();
        expect(await s.getAssessment(ORG, "e1")).toBeDefined();
        await admin.query(`DROP TRIGGER refuse ON "${where}".oral_assessments`);
        await s.deleteCourse(ORG, "c1");
        expect(await s.getCourse(ORG, "c1")).toBeUndefined();
        expect(await s.getAssessment(ORG, "e1")).toBeUndefined();
      } finally {
        await s.close();
      }
    });

    it("logs (does not throw) an error of an idle pooled connection, and keeps working on a new one", async () => {
      const app = `${run}_killed`;
      const warnings: unknown[] = [];
      const s = postgresStore({
        connectionString: `${url}?application_name=${app}`, schema: schema("killed"),
        logger: { warn: (obj: unknown) => { warnings.push(obj); } },
      });
      try {
        await s.putCourse(ORG, { id: "c1", name: "C", data: {}, createdAt });
        const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [app]);
        expect(killed.rowCount).toBeGreaterThan(0);
        await expect.poll(() => warnings.length).toBeGreaterThan(0);
        expect(warnings[0]).toMatchObject({ event: "store_connection_error" });
        expect(await s.getCourse(ORG, "c1")).toBeDefined();
      } finally {
        await s.close();
      }
    });
  });

  it("never lets a class or an assessment slip past a concurrent deleteCourse", async () => {
    const where = schema();
    const writer = store({ schema: where, tablePrefix: "race_" });
    const deleter = store({ schema: where, tablePrefix: "race_" });
    const stores: OralStore[] = [writer, deleter];
    try {
      await Promise.all(stores.map((s) => s.init()));
      for (let round = 0; round < 5; round++) {
        const courseId = `c${round}`;
        const createdAt = new Date().toISOString();
        const classId = `${courseId}-k`;
        await writer.putCourse(ORG, { id: courseId, name: "C", data: {}, createdAt });
        await writer.putClass(ORG, { id: classId, courseId, name: "K", data: {}, createdAt });
        const puts = Array.from({ length: 20 }, (_, i) => [
          writer.putClass(ORG, { id: `${classId}${i}`, courseId, name: "K", data: {}, createdAt }),
          writer.putAssessment(ORG, { id: `${courseId}-e${i}`, classId, courseId: undefined, name: "E", data: {}, createdAt }),
        ]).flat();
        await Promise.all([...puts, deleter.deleteCourse(ORG, courseId)]);
        expect(await deleter.listClasses(ORG, courseId)).toEqual([]);
        expect(await deleter.listAssessments(ORG, classId)).toEqual([]);
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

describe("postgresStore: options", () => {
  const problemsOf = (options: unknown) => {
    try {
      postgresStore(options as PostgresStoreOptions);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      return (error as ConfigurationError).problems;
    }
    throw new Error("expected a ConfigurationError");
  };

  it("needs exactly one of connectionString and pool", () => {
    expect(problemsOf({}).map((p) => p.option)).toEqual(["connectionString"]);
    const pool = new pg.Pool({ connectionString: url });
    expect(problemsOf({ connectionString: url, pool }).map((p) => p.option)).toEqual(["pool"]);
    void pool.end();
  });

  it("reports every bad option at once, each with a fix, never echoing the connection string", () => {
    const problems = problemsOf({ connectionString: 42, schema: "Bad-Schema", tablePrefix: "x".repeat(50), conectionString: "postgres://u:pw@h/db" });
    expect(problems.map((p) => p.option).sort()).toEqual(["conectionString", "connectionString", "schema", "tablePrefix"]);
    for (const p of problems) expect(p.fix.length).toBeGreaterThan(0);
    expect(JSON.stringify(problems)).not.toContain("pw@");
    expect(problemsOf({ pool: {} }).map((p) => p.option)).toEqual(["pool"]);
  });

  it("accepts an empty table prefix and the documented defaults", () => {
    expect(() => postgresStore({ connectionString: url, tablePrefix: "" })).not.toThrow();
    expect(() => postgresStore({ connectionString: url, schema: "public", tablePrefix: "oral_" })).not.toThrow();
  });
});
