import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { sqliteStore } from "../../src/store/sqlite.js";
import { MIGRATIONS } from "../../src/store/sqlite-schema.js";
import { describeStoreContract } from "./store-contract.js";

const dir = mkdtempSync(join(tmpdir(), "eoa-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
      expect(db.pragma("user_version", { simple: true })).toBe(3);
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all();
      expect(indexes).toEqual(["assessments_by_class", "assessments_by_course", "classes_by_course", "courses_by_created", "idempotency_expiry"]);
    } finally {
      db.close();
    }
  });

  it("creates a new file, and its -wal and -shm files, readable by their owner only (0600), even under a permissive umask", async () => {
    const filename = join(dir, "private", "store.sqlite");
    const umask = process.umask(0o000);
    try {
      const store = sqliteStore({ filename });
      await store.putCourse({ id: "c1", name: "Private", data: {}, createdAt: new Date().toISOString() });
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
      expect(plan("SELECT * FROM classes WHERE course_id = 'c' AND deleted_at IS NULL ORDER BY created_ms, seq")).toMatch(/USING INDEX classes_by_course/);
      expect(plan("SELECT * FROM assessments WHERE class_id = 'k' AND deleted_at IS NULL ORDER BY created_ms, seq")).toMatch(/USING INDEX assessments_by_class/);
      expect(plan("SELECT * FROM classes WHERE course_id = 'c' AND deleted_at IS NULL ORDER BY created_ms, seq")).not.toMatch(/TEMP B-TREE/);
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
      await store.putCourse({ id: "c" + process.pid, name: "C", data: {}, createdAt: new Date().toISOString() });
      await store.close();`;
    const run = promisify(execFile);
    const startAt = String(Date.now() + 2500);
    await Promise.all(Array.from({ length: 4 }, () =>
      run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, filename, startAt])));
    const store = sqliteStore({ filename });
    expect(await store.listCourses()).toHaveLength(4);
    await store.close();
  });

  it("upgrades a version-1 file in place: records kept (exams as oral), idempotency records usable", async () => {
    const filename = join(dir, "v1.sqlite");
    // What the first release left: its schema only (version 1), with a course and an exam in it.
    const db = new Database(filename);
    db.exec(MIGRATIONS[0]!.up);
    db.pragma("user_version = 1");
    const created = new Date().toISOString();
    db.prepare("INSERT INTO courses (id, name, data, created_at, created_ms) VALUES ('c1', 'Kept', '{\"x\":1}', ?, 0)").run(created);
    db.prepare("INSERT INTO assessments (id, class_id, name, data, created_at, created_ms) VALUES ('e1', 'k1', 'Exam', '{}', ?, 0)").run(created);
    db.close();
    const upgraded = sqliteStore({ filename });
    expect(await upgraded.getCourse("c1")).toMatchObject({ name: "Kept", data: { x: 1 } });
    // Exams from before role-plays existed are oral assessments.
    expect(await upgraded.getAssessment("e1")).toMatchObject({ kind: "oral", classId: "k1" });
    expect((await upgraded.listAssessments("k1")).map((e) => e.id)).toEqual(["e1"]);
    expect(await upgraded.beginIdempotent({ user: "u", key: "k", bodyHash: "h" })).toEqual({ state: "new" });
    await upgraded.close();
    const check = new Database(filename, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(3);
    check.close();
  });

  it("refuses a database written by a newer release, with a ConfigurationError naming the fix", async () => {
    const filename = join(dir, "future.sqlite");
    const db = new Database(filename);
    db.pragma("user_version = 99");
    db.close();
    const store = sqliteStore({ filename });
    const error = await store.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems[0]).toMatchObject({ option: "filename" });
    expect(String(error)).toMatch(/version 99.*Upgrade/s);
    // A failed opening is not cached: once the file is fixed, init() succeeds.
    const fix = new Database(filename);
    fix.pragma("user_version = 0");
    fix.close();
    await expect(store.init()).resolves.toBeUndefined();
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
