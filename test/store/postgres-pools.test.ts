/**
 * postgresStore's connections against a real PostgreSQL (postgres-support.ts): the pool it
 * owns or borrows, an unreachable server, a failed migration rolled back, a failed
 * deleteCourse rolled back, and an idle pooled connection's error logged, not thrown.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../src/store/postgres.js";
import { postgresOrSkip, url, usePostgres } from "./postgres-support.js";

const ORG = "north";
const reachable = await postgresOrSkip();

describe.runIf(reachable)("postgresStore", () => {
  const { admin, run, schema, store } = usePostgres();

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
});
