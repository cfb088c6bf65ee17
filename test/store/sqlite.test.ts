/**
 * sqliteStore: the OralStore contract on files, the file itself (where, WAL, owner-only
 * permissions, indexes used, one migration among racing processes) and its options.
 * Upgrades of files written by earlier releases: sqlite-upgrades.test.ts.
 */
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { sqliteStore } from "../../src/store/sqlite.js";
import { describeStoreContract } from "./store-contract.js";
import { scratchDir } from "./scratch-dir.js";

const ORG = "north";
const dir = scratchDir();

describeStoreContract("sqliteStore", (place) => sqliteStore({ filename: join(dir, `${place}.sqlite`) }), { persistent: true });

describe("sqliteStore: the file", () => {
  it("defaults to ./oral-assessments.sqlite in the working directory, and touches nothing until used", () => {
    const store = sqliteStore();
    expect(store.filename).toBe(resolve(process.cwd(), "oral-assessments.sqlite"));
    expect(sqliteStore({ filename: "data/x.sqlite" }).filename).toBe(resolve(process.cwd(), "data/x.sqlite"));
    expect(existsSync(join(dir, "untouched.sqlite"))).toBe(false);
    sqliteStore({ filename: join(dir, "untouched.sqlite") });
    expect(existsSync(join(dir, "untouched.sqlite"))).toBe(false);
  });

  it("creates a missing folder, uses WAL, and records the schema version in user_version", async () => {
    const filename = join(dir, "nested", "deeper", "store.sqlite");
    const store = sqliteStore({ filename });
    await store.init();
    await store.close();
    const db = new Database(filename, { readonly: true });
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("user_version", { simple: true })).toBe(13);
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all();
      expect(indexes).toEqual(["assessments_by_class", "assessments_by_course", "classes_by_course", "courses_by_created", "idempotency_expiry", "launch_latest_expiry", "launches_by_exam", "launches_expiry", "lti_course_links_by_class", "lti_scores_by_learner", "lti_scores_due", "lti_scores_heads"]);
    } finally {
      db.close();
    }
  });

  it("creates a new file, and its -wal and -shm files, readable by their owner only (0600), even under a permissive umask", async () => {
    const filename = join(dir, "private", "store.sqlite");
    const umask = process.umask(0o000);
    try {
      const store = sqliteStore({ filename });
      await store.putCourse(ORG, { id: "c1", name: "Private", data: {}, createdAt: new Date().toISOString() });
      for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) {
        expect((statSync(file).mode & 0o777).toString(8), file).toBe("600");
      }
      await store.close();
    } finally {
      process.umask(umask);
    }
  });

  it("answers list queries from the indexes, not by scanning tables", async () => {
    const filename = join(dir, "plan.sqlite");
    await sqliteStore({ filename }).init();
    const db = new Database(filename, { readonly: true });
    try {
      const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join("; ");
      const classes = "SELECT * FROM classes WHERE organization = 'o' AND course_id = 'c' AND deleted_at IS NULL ORDER BY created_ms, seq";
      expect(plan(classes)).toMatch(/USING INDEX classes_by_course/);
      expect(plan(classes)).not.toMatch(/TEMP B-TREE/);
      const exams = "SELECT * FROM assessments WHERE organization = 'o' AND class_id = 'k' AND kind = 'oral' AND deleted_at IS NULL ORDER BY created_ms, seq";
      expect(plan(exams)).toMatch(/USING INDEX assessments_by_class/);
      expect(plan(exams)).not.toMatch(/TEMP B-TREE/);
      expect(plan("SELECT * FROM courses WHERE organization = 'o' AND deleted_at IS NULL ORDER BY created_ms, seq")).not.toMatch(/TEMP B-TREE/);
      expect(plan("SELECT * FROM courses WHERE organization = 'o' AND id = 'c'")).toMatch(/USING INDEX sqlite_autoindex_courses/);
      const launches = "SELECT * FROM launches WHERE organization = 'o' AND kind = 'oral' AND exam_id = 'e' ORDER BY at_ms DESC, seq DESC LIMIT 101";
      expect(plan(launches)).toMatch(/USING INDEX launches_by_exam/);
      expect(plan(launches)).not.toMatch(/TEMP B-TREE/);
    } finally {
      db.close();
    }
  });

  it("migrates once when several processes open a new file at the same moment", async () => {
    const filename = join(dir, "race.sqlite");
    const script = `
      const { sqliteStore } = await import("./src/store/sqlite.ts");
      const store = sqliteStore({ filename: process.argv[1] });
      // Start together: process start-up times differ by more than a migration takes.
      await new Promise((go) => setTimeout(go, Number(process.argv[2]) - Date.now()));
      await store.init();
      await store.putCourse("north", { id: "c" + process.pid, name: "C", data: {}, createdAt: new Date().toISOString() });
      await store.close();`;
    const run = promisify(execFile);
    const startAt = String(Date.now() + 2500);
    await Promise.all(Array.from({ length: 4 }, () =>
      run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, filename, startAt])));
    const store = sqliteStore({ filename });
    expect(await store.listCourses(ORG)).toHaveLength(4);
    await store.close();
  });
});

describe("sqliteStore: options", () => {
  it("reports every bad option at once, each with a fix", () => {
    let error: unknown;
    try {
      sqliteStore({ filename: "", busyTimeoutMs: -1, file: "x.sqlite" } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems;
    expect(problems.map((p) => p.option).sort()).toEqual(["busyTimeoutMs", "file", "filename"]);
    for (const p of problems) expect(p.fix.length).toBeGreaterThan(0);
  });

  it("rejects options that are not an object", () => {
    expect(() => sqliteStore("x.sqlite" as never)).toThrow(ConfigurationError);
  });
});
