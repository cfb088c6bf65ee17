/**
 * The default store: one SQLite file, so `oralAssessments()` keeps working across
 * restarts with nothing to configure. Right for one app instance (or several processes
 * on one machine: WAL and a busy timeout let them share the file). Several machines need
 * `postgresStore()`.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { ConfigurationError, ProblemList } from "../core/configuration-error.js";
import { answerFor, bodyText, checkIdempotencyKey, expiredBefore, type IdempotencyRow } from "./idempotency.js";
import { lifecycle } from "./lifecycle.js";
import { pendingMigrations } from "./migrations.js";
import { MIGRATIONS } from "./sqlite-migrations.js";
import { SQL } from "./sqlite-schema.js";
import { DEFAULT_SQLITE_FILENAME, readStoreOptions, sqliteStoreSchema } from "./options.js";
import { checkOrganization, checkRecord, createdMs, toAssessment, toClass, toCourse, type RecordRow as Row } from "./records.js";
import { checkLaunchRecord, pageOf } from "./launch-records.js";
import { launchColumns, listParams, positionOf, toLaunchRecord, type LaunchColumns, type LaunchRow } from "./launch-rows.js";
import { sqliteLti } from "./sqlite-lti.js";
import type { CourseRecord, OralStoreWithLti } from "./types.js";

export interface SqliteStoreOptions {
  /**
   * The database file, resolved against `process.cwd()` when the store is created; its
   * folder is created if missing. SQLite keeps `-wal` and `-shm` files next to it.
   * `":memory:"` gives a private, throwaway database. A new file is created readable by its
   * owner only (mode 0600). Default `"./oral-assessments.sqlite"`.
   */
  filename?: string;
  /**
   * How long a write waits for another process holding the write lock before failing
   * with SQLITE_BUSY, in milliseconds (SQLite's `busy_timeout`). Default 5000.
   */
  busyTimeoutMs?: number;
}

export interface SqliteStore extends OralStoreWithLti {
  /** The absolute path of the database file (or `":memory:"`). */
  readonly filename: string;
}

export { DEFAULT_SQLITE_FILENAME };
const COMPONENT = "sqliteStore";

/** What every write binds: the organization and the shared columns of a record. */
function columns(org: string, r: CourseRecord): Record<string, string | number> {
  return { org, id: r.id, name: r.name, data: JSON.stringify(r.data), createdAt: r.createdAt, createdMs: createdMs(r.createdAt) };
}

/** The idempotency statements' parameters: the key, whole. */
interface IdempotencyParams { org: string; user: string; key: string }
const keyOf = (input: IdempotencyParams): IdempotencyParams => ({ org: input.org, user: input.user, key: input.key });

/**
 * Loaded on first use, not on import: importing the package (for the client, or to use
 * PostgreSQL) must work where the native module was not built. `better-sqlite3` is an
 * optional peer dependency (compiling it takes a minute on an install without a prebuilt
 * binary), so a missing one is a configuration error that says how to install it; it is
 * never a silent fall-back to memory, which would lose every record at the next restart.
 */
async function loadDriver(): Promise<typeof BetterSqlite3> {
  try {
    // import(), not createRequire(import.meta.url): it compiles to both the ESM and the CommonJS build.
    return (await import("better-sqlite3")).default;
  } catch (error) {
    const missing = isMissingPackage(error, "better-sqlite3");
    throw new ConfigurationError(COMPONENT, [{
      option: "better-sqlite3",
      message: missing
        ? "is not installed: the default store, sqliteStore(), needs it (an optional peer dependency)."
        : `could not be loaded (${error instanceof Error ? error.message.split("\n")[0] : String(error)}).`,
      fix: missing
        ? "Run `npm install better-sqlite3`, or pass another store: postgresStore({ connectionString }) or memoryStore() (records lost at restart)."
        : "Run `npm rebuild better-sqlite3` (its native module must match this Node version), or pass another store: postgresStore({ connectionString }) or memoryStore().",
    }]);
  }
}

/** The package itself is absent (ESM and CommonJS say so differently), not a file inside it or its native module. */
function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && String(message).includes(`'${name}'`);
}

async function open(filename: string, busyTimeoutMs: number) {
  const Database = await loadDriver();
  if (filename !== ":memory:") {
    mkdirSync(dirname(filename), { recursive: true });
    // Created owner-only (0600) before SQLite opens it: the file holds idempotency answers
    // and the organization's records. SQLite gives its -wal and -shm files the same mode.
    // An existing file keeps the mode its owner chose.
    closeSync(openSync(filename, "a", 0o600));
  }
  const db = new Database(filename);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // WAL: readers (launches) never wait for a writer, and several processes can share the file.
    db.pragma("journal_mode = WAL");
    // IMMEDIATE takes the write lock before reading the version, so two processes
    // starting together migrate one after the other instead of both at once.
    db.transaction(() => {
      const current = db.pragma("user_version", { simple: true }) as number;
      for (const step of pendingMigrations(COMPONENT, "filename", current, MIGRATIONS)) {
        db.exec(step.up);
        db.pragma(`user_version = ${step.version}`);
      }
    }).immediate();
    const statements = Object.fromEntries(
      Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)]),
    ) as Record<keyof typeof SQL, BetterSqlite3.Statement>;
    const deleteCourse = db.transaction((org: string, id: string, now: string) => {
      for (const step of [statements.deleteCourse, statements.deleteClasses, statements.deleteAssessments]) step.run({ org, id, now });
    });
    const deleteClass = db.transaction((org: string, id: string, now: string) => {
      for (const step of [statements.deleteClass, statements.deleteClassExams]) step.run({ org, id, now });
    });
    // One write transaction: purge, claim, read back. Across processes the PRIMARY KEY
    // decides who claimed first; the read sees the winner's row.
    const beginIdempotent = db.transaction((input: IdempotencyParams & { bodyHash: string; now: number }) => {
      statements.purgeIdempotent.run({ ...keyOf(input), ...expiredBefore(input.now) });
      if (statements.claimIdempotent.run(input).changes === 1) return { state: "new" } as const;
      return answerFor(statements.readIdempotent.get(input) as IdempotencyRow, input.bodyHash);
    });
    const addLaunches = db.transaction((rows: LaunchColumns[]) => {
      for (const row of rows) {
        const seq = statements.addLaunch.run(row).lastInsertRowid;
        statements.addLatestLaunch.run({ ...row, seq });
      }
    });
    const purgeLaunches = db.transaction((before: number) => {
      statements.purgeLatestLaunches.run({ before });
      return statements.purgeLaunches.run({ before }).changes;
    });
    return {
      db,
      statements,
      addLaunches: (rows: LaunchColumns[]) => addLaunches.immediate(rows),
      purgeLaunches: (before: number) => purgeLaunches.immediate(before),
      deleteCourse: (org: string, id: string, now: string) => deleteCourse.immediate(org, id, now),
      deleteClass: (org: string, id: string, now: string) => deleteClass.immediate(org, id, now),
      beginIdempotent: (input: IdempotencyParams & { bodyHash: string; now: number }) => beginIdempotent.immediate(input),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

export function sqliteStore(options?: SqliteStoreOptions): SqliteStore {
  const problems = new ProblemList();
  const { filename, busyTimeoutMs } = readStoreOptions(problems, options, sqliteStoreSchema);
  problems.throwIfAny(COMPONENT);

  const path = filename === ":memory:" ? filename : resolve(process.cwd(), filename);
  const state = lifecycle(COMPONENT, async () => open(path, busyTimeoutMs), (handle) => {
    handle.db.close();
  });
  /** Every lookup names its organization: checked here, before the statement runs. */
  const run = async <T>(org: string, use: (s: Record<keyof typeof SQL, BetterSqlite3.Statement>) => T): Promise<T> => {
    checkOrganization(org);
    return use((await state.ready()).statements);
  };

  return {
    filename: path,
    async init() {
      await state.ready();
    },

    async putCourse(org, record) {
      checkRecord("course", org, record);
      await run(org, (s) => s.putCourse.run(columns(org, record)));
    },
    getCourse: (org, id) => run(org, (s) => {
      const row = s.getCourse.get({ org, id }) as Row | undefined;
      return row && toCourse(row);
    }),
    listCourses: (org) => run(org, (s) => (s.listCourses.all({ org }) as Row[]).map(toCourse)),
    async deleteCourse(org, id) {
      checkOrganization(org);
      const handle = await state.ready();
      handle.deleteCourse(org, id, new Date().toISOString());
    },

    async putClass(org, record) {
      checkRecord("class", org, record);
      await run(org, (s) => s.putClass.run({ ...columns(org, record), courseId: record.courseId }));
    },
    getClass: (org, id) => run(org, (s) => {
      const row = s.getClass.get({ org, id }) as Row | undefined;
      return row && toClass(row);
    }),
    listClasses: (org, courseId) => run(org, (s) => (s.listClasses.all({ org, courseId }) as Row[]).map(toClass)),
    async deleteClass(org, id) {
      checkOrganization(org);
      const handle = await state.ready();
      handle.deleteClass(org, id, new Date().toISOString());
    },

    async putAssessment(org, record) {
      checkRecord("assessment", org, record);
      await run(org, (s) => s.putAssessment.run({
        ...columns(org, record), kind: record.kind ?? "oral", classId: record.classId, courseId: record.courseId ?? null,
      }));
    },
    getAssessment: (org, id) => run(org, (s) => {
      const row = s.getAssessment.get({ org, id }) as Row | undefined;
      return row && toAssessment(row);
    }),
    listAssessments: (org, classId, kind = "oral") => run(org, (s) => (s.listAssessments.all({ org, classId, kind }) as Row[]).map(toAssessment)),
    async deleteAssessment(org, id) {
      await run(org, (s) => s.deleteAssessment.run({ org, id, now: new Date().toISOString() }));
    },

    async beginIdempotent(input) {
      checkIdempotencyKey(input, { bodyHash: input.bodyHash });
      const handle = await state.ready();
      return handle.beginIdempotent({ ...keyOf(input), bodyHash: input.bodyHash, now: input.now ?? Date.now() });
    },
    async completeIdempotent(input) {
      checkIdempotencyKey(input, { status: input.status });
      await run(input.org, (s) => s.completeIdempotent.run({ ...keyOf(input), status: input.status, body: bodyText(input.body) }));
    },
    async abandonIdempotent(input) {
      checkIdempotencyKey(input);
      await run(input.org, (s) => s.abandonIdempotent.run(keyOf(input)));
    },

    async addLaunches(org, records) {
      checkOrganization(org);
      records.forEach(checkLaunchRecord);
      if (records.length === 0) return;
      (await state.ready()).addLaunches(records.map((r) => launchColumns(org, r)));
    },
    listLaunches: (org, query) => run(org, (s) =>
      pageOf(s.listLaunches.all(listParams(org, query)) as LaunchRow[], query.limit, positionOf, toLaunchRecord)),
    countLaunches: (org, q) => run(org, (s) => {
      const rows = (q.latestPerStudent ? s.countLatestLaunches : s.countLaunches).all({ org, kind: q.kind, examId: q.examId, since: q.since ?? 0 }) as { outcome: string; n: number }[];
      return Object.fromEntries(rows.map((r) => [r.outcome, r.n]));
    }),
    async purgeLaunches(before) {
      return (await state.ready()).purgeLaunches(before);
    },
    ...sqliteLti(() => state.ready()),

    close: () => state.close(),
  };
}
