/**
 * sqliteStore on files written by earlier releases: each is upgraded in place (records
 * kept, new tables written and read, the version recorded), and a file of a newer release
 * is refused with a ConfigurationError naming the fix.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { sqliteStore } from "../../src/store/sqlite.js";
import { MIGRATIONS } from "../../src/store/sqlite-migrations.js";
import { DEFAULT_ORGANIZATION } from "../../src/store/types.js";
import { expectV10ScoresUpgraded, V10_SCORE_ROWS } from "./lti-scores-v10.js";
import { expectV11Upgraded, V11_COURSE } from "./lti-copy-notices-v11.js";
import { expectV12NotesMoved, V12_NOTE_ROWS } from "./lti-notes-v12.js";
import { scratchDir } from "./scratch-dir.js";

const ORG = "north";
const dir = scratchDir();

/** A SQLite file (`name`.sqlite) as release `version` left it: every migration up to it, its user_version set. Open: add rows, then close. */
function fileAt(name: string, version: number) {
  const filename = join(dir, `${name}.sqlite`);
  const db = new Database(filename);
  for (const step of MIGRATIONS.filter((m) => m.version <= version)) db.exec(step.up);
  db.pragma(`user_version = ${version}`);
  return { filename, db };
}

describe("sqliteStore: the file", () => {
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
    const org = DEFAULT_ORGANIZATION;
    expect(await upgraded.getCourse(org, "c1")).toMatchObject({ name: "Kept", data: { x: 1 } });
    // Exams from before role-plays existed are oral assessments.
    expect(await upgraded.getAssessment(org, "e1")).toMatchObject({ kind: "oral", classId: "k1" });
    expect((await upgraded.listAssessments(org, "k1")).map((e) => e.id)).toEqual(["e1"]);
    expect(await upgraded.beginIdempotent({ org, user: "u", key: "k", bodyHash: "h" })).toEqual({ state: "new" });
    await upgraded.close();
    const check = new Database(filename, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(13);
    check.close();
  });

  it("upgrades a version-4 file in place: records kept, launch records written and read", async () => {
    const { filename, db } = fileAt("v4", 4);
    const at = "2026-01-01T09:00:00.000Z";
    db.prepare("INSERT INTO courses (organization, id, name, data, created_at, created_ms) VALUES ('north', 'c1', 'Kept', '{}', ?, ?)").run(at, Date.parse(at));
    db.close();
    const store = sqliteStore({ filename });
    try {
      expect(await store.getCourse(ORG, "c1")).toMatchObject({ name: "Kept" });
      const launch = { at, kind: "oral" as const, examId: "e1", outcome: "forbidden", status: 403, servedBy: "none" as const, via: "link" as const, student: { orgInternalId: "u1", email: "u1@x.test" } };
      await store.addLaunches(ORG, [launch]);
      expect((await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 5 })).records).toEqual([launch]);
    } finally {
      await store.close();
    }
    const check = new Database(filename, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(13);
    check.close();
  });

  it("upgrades a version-6 file in place: each student's latest launch outcome taken from the history", async () => {
    const { filename, db } = fileAt("v6", 6);
    const add = db.prepare(`INSERT INTO launches (organization, kind, exam_id, at_ms, outcome, status, served_by, via, student_id, student_email)
      VALUES ('north', 'oral', 'e1', ?, ?, 303, 'none', 'link', ?, 'x@x.test')`);
    add.run(3, "redirected", "u1");
    add.run(1, "waiting", "u1");
    add.run(2, "waiting", "u2");
    add.run(2, "forbidden", "u2");
    db.close();
    const store = sqliteStore({ filename });
    try {
      expect(await store.countLaunches(ORG, { kind: "oral", examId: "e1", latestPerStudent: true })).toEqual({ redirected: 1, forbidden: 1 });
    } finally {
      await store.close();
    }
  });

  it("upgrades a version-10 file in place: each learner's first pending score becomes their head, each score gets its LMS", async () => {
    const { filename, db } = fileAt("v10", 10);
    const add = db.prepare("INSERT INTO lti_scores (id, organization, kind, exam_id, user_id, issuer, entry, state, next_ms, queued_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const r of V10_SCORE_ROWS) add.run(...r);
    db.close();
    const store = sqliteStore({ filename });
    try {
      await expectV10ScoresUpgraded(store);
    } finally {
      await store.close();
    }
  });

  it("upgrades a version-11 file in place: its course links kept, copy notices written and read", async () => {
    const { filename, db } = fileAt("v11", 11);
    db.prepare("INSERT INTO lti_course_links (organization, issuer, client_id, deployment_id, context_id, class_id, linked_by, linked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(ORG, ...Object.values(V11_COURSE), "class-1", "ines", "2026-11-01T09:00:00.000Z");
    db.close();
    const store = sqliteStore({ filename });
    try {
      await expectV11Upgraded(store, ORG);
      const check = new Database(filename, { readonly: true });
      expect(check.pragma("user_version", { simple: true })).toBe(13);
      check.close();
    } finally {
      await store.close();
    }
  });

  it("upgrades a version-12 file in place: a sent entry's note moves from last_error to its own column; errors stay", async () => {
    const { filename, db } = fileAt("v12", 12);
    const add = db.prepare("INSERT INTO lti_scores (id, organization, kind, exam_id, user_id, issuer, entry, state, next_ms, queued_ms, last_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const r of V12_NOTE_ROWS) add.run(...r);
    db.close();
    const store = sqliteStore({ filename });
    try {
      await expectV12NotesMoved(store);
      const check = new Database(filename, { readonly: true });
      expect(check.pragma("user_version", { simple: true })).toBe(13);
      check.close();
    } finally {
      await store.close();
    }
  });

  it("upgrades a version-5 file in place: launch records kept, LTI registrations written and read", async () => {
    const { filename, db } = fileAt("v5", 5);
    const at = "2026-01-01T09:00:00.000Z";
    db.prepare(`INSERT INTO launches (organization, kind, exam_id, at_ms, outcome, status, served_by, via, student_id, student_email)
      VALUES ('north', 'oral', 'e1', ?, 'redirected', 303, 'prepared', 'lti', 'u1', 'u1@x.test')`).run(Date.parse(at));
    db.close();
    const store = sqliteStore({ filename });
    try {
      expect((await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 5 })).records).toMatchObject([{ at, via: "lti" }]);
      const registration = { issuer: "https://lms.example", clientId: "c1", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks",
        active: false, acceptNewDeployments: true, organization: ORG, data: {}, createdAt: at };
      await store.putLtiRegistration(registration);
      expect(await store.putLtiDeployment("https://lms.example", "c1", { id: "d1" })).toBe(true);
      expect(await store.getLtiRegistration("https://lms.example", "c1")).toEqual({ ...registration, deployments: [{ id: "d1" }] });
    } finally {
      await store.close();
    }
    const check = new Database(filename, { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(13);
    check.close();
  });

  it("upgrades a version-3 file (the schema before organizations) in place: every row into organization default", async () => {
    const filename = join(dir, "v3.sqlite");
    // The tables exactly as version 3 left them, written out here rather than taken from
    // MIGRATIONS, so a change to a released step cannot quietly change this fixture.
    const db = new Database(filename);
    db.exec(`
      CREATE TABLE courses (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, data TEXT NOT NULL,
        created_at TEXT NOT NULL, created_ms INTEGER NOT NULL, deleted_at TEXT);
      CREATE INDEX courses_by_created ON courses (created_ms, seq) WHERE deleted_at IS NULL;
      CREATE TABLE classes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, course_id TEXT NOT NULL, name TEXT NOT NULL,
        data TEXT NOT NULL, created_at TEXT NOT NULL, created_ms INTEGER NOT NULL, deleted_at TEXT);
      CREATE INDEX classes_by_course ON classes (course_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE TABLE assessments (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, class_id TEXT NOT NULL, course_id TEXT,
        name TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL, created_ms INTEGER NOT NULL, deleted_at TEXT,
        kind TEXT NOT NULL DEFAULT 'oral' CHECK (kind IN ('oral', 'roleplay')));
      CREATE INDEX assessments_by_course ON assessments (course_id) WHERE deleted_at IS NULL;
      CREATE INDEX assessments_by_class ON assessments (class_id, kind, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE TABLE idempotency (user_id TEXT NOT NULL, key TEXT NOT NULL, body_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'done')), status INTEGER, body TEXT, started_ms INTEGER NOT NULL,
        PRIMARY KEY (user_id, key)) WITHOUT ROWID;
      CREATE INDEX idempotency_expiry ON idempotency (started_ms);
      PRAGMA user_version = 3;
    `);
    const at = "2026-01-01T09:00:00.000Z";
    const ms = Date.parse(at);
    const row = (table: string, columns: string, values: unknown[]) =>
      db.prepare(`INSERT INTO ${table} (${columns}) VALUES (${values.map(() => "?").join(", ")})`).run(...values);
    // Two courses at the same instant: only seq orders them, and must keep doing so.
    row("courses", "id, name, data, created_at, created_ms", ["c2", "Second", "{}", at, ms]);
    row("courses", "id, name, data, created_at, created_ms", ["c1", "First", "{\"x\":1}", at, ms]);
    row("classes", "id, course_id, name, data, created_at, created_ms", ["k1", "c1", "Class", "{}", at, ms]);
    row("classes", "id, course_id, name, data, created_at, created_ms, deleted_at", ["k2", "c1", "Gone", "{}", at, ms, at]);
    row("assessments", "id, class_id, course_id, name, data, created_at, created_ms", ["e1", "k1", "c1", "Exam", "{}", at, ms]);
    row("assessments", "id, class_id, course_id, name, data, created_at, created_ms, kind", ["r1", "k1", "c1", "Play", "{}", at, ms, "roleplay"]);
    const now = Date.now();
    row("idempotency", "user_id, key, body_hash, state, status, body, started_ms", ["id:u", "key-1", "h", "done", 201, "{\"json\":1}", now]);
    db.close();

    const store = sqliteStore({ filename });
    const org = DEFAULT_ORGANIZATION;
    try {
      expect((await store.listCourses(org)).map((c) => c.id)).toEqual(["c2", "c1"]);
      expect(await store.getCourse(org, "c1")).toEqual({ id: "c1", name: "First", data: { x: 1 }, createdAt: at });
      expect((await store.listClasses(org, "c1")).map((c) => c.id)).toEqual(["k1"]);
      expect(await store.getClass(org, "k2")).toBeUndefined(); // deleted stays deleted
      expect(await store.getAssessment(org, "r1")).toMatchObject({ kind: "roleplay", classId: "k1", courseId: "c1" });
      expect((await store.listAssessments(org, "k1")).map((e) => e.id)).toEqual(["e1"]);
      expect(await store.beginIdempotent({ org, user: "id:u", key: "key-1", bodyHash: "h" })).toEqual({ state: "done", status: 201, body: { json: 1 } });
      // Nothing of it belongs to another organization, and the old ids are free there.
      expect(await store.listCourses(ORG)).toEqual([]);
      expect(await store.getAssessment(ORG, "e1")).toBeUndefined();
      expect(await store.beginIdempotent({ org: ORG, user: "id:u", key: "key-1", bodyHash: "other" })).toEqual({ state: "new" });
      await store.putCourse(ORG, { id: "c1", name: "North's", data: {}, createdAt: at });
      expect((await store.getCourse(org, "c1"))?.name).toBe("First");
      // New rows continue after the copied ones (AUTOINCREMENT carried over): same instant, listed last.
      await store.putCourse(org, { id: "c3", name: "Third", data: {}, createdAt: at });
      expect((await store.listCourses(org)).map((c) => c.id)).toEqual(["c2", "c1", "c3"]);
      // A cascade under default still reaches the migrated children.
      await store.deleteCourse(org, "c1");
      expect(await store.getAssessment(org, "r1")).toBeUndefined();
      expect(await store.getCourse(ORG, "c1")).toBeDefined();
    } finally {
      await store.close();
    }
    const check = new Database(filename, { readonly: true });
    try {
      expect(check.pragma("user_version", { simple: true })).toBe(13);
      const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all();
      expect(tables).toEqual(["assessments", "classes", "courses", "idempotency", "launch_latest", "launches", "lti_course_copy_notices", "lti_course_links", "lti_course_services", "lti_deployments", "lti_exam_copies", "lti_line_items", "lti_registrations", "lti_scores"]);
    } finally {
      check.close();
    }
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
