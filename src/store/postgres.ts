/**
 * The store for several app instances behind a load balancer: they share one PostgreSQL
 * database, so a class created through one instance can be launched through another.
 * `pg` is an optional peer dependency, loaded only when this store creates its own pool.
 */
import type { Pool, PoolClient } from "pg";
import { ConfigurationError, ProblemList } from "../core/configuration-error.js";
import { toLogger, type Logger } from "../core/logger.js";
import { lifecycle } from "./lifecycle.js";
import { pendingMigrations, type Migration } from "./migrations.js";
import { describe, readOptions } from "./options.js";
import { checkRecord, createdMs } from "./records.js";
import type { AssessmentRecord, ClassRecord, CourseRecord, OralStore } from "./types.js";

export interface PostgresStoreOptions {
  /**
   * `postgres://user:password@host:5432/database`. The store creates its own pool from it
   * and ends that pool on `close()`. Give this or `pool`, not both. No default.
   */
  connectionString?: string;
  /** A `pg.Pool` the app already has. The store borrows it: `close()` leaves it open. No default. */
  pool?: Pool;
  /** The schema that holds the tables; created on first use if missing. Default `"public"`. */
  schema?: string;
  /** Put before each table name, so the tables sit beside the app's own without clashing. Default `"oral_"`. */
  tablePrefix?: string;
  /**
   * Where errors of idle connections in a pool the store created are reported (a
   * restarted database, say). The pool drops such connections and opens new ones on
   * demand; the event is logged, not thrown, because an unhandled pool error would
   * crash the process. Default: silent.
   */
  logger?: Partial<Logger>;
}

const COMPONENT = "postgresStore";
const KNOWN = ["connectionString", "pool", "schema", "tablePrefix", "logger"] as const;
/** Lower case only: the names then work unquoted in psql, exactly as written here. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
/** PostgreSQL truncates names at 63 bytes; the longest name we add to the prefix is 21 characters. */
const MAX_PREFIX = 63 - "assessments_by_course".length;

interface Names {
  schema: string;
  version: string;
  courses: string;
  classes: string;
  assessments: string;
  /** An index name: unqualified, since an index lives in its table's schema. */
  index(name: string): string;
}

function names(schema: string, prefix: string): Names {
  const table = (name: string) => `"${schema}"."${prefix}${name}"`;
  return {
    schema,
    version: table("schema_version"),
    courses: table("courses"),
    classes: table("classes"),
    assessments: table("assessments"),
    index: (name) => `"${prefix}${name}"`,
  };
}

// `seq` is the insertion-order tiebreak (an upsert keeps it); `created_ms` sorts by
// instant; `created_at` keeps the caller's exact string. Partial indexes: lists and the
// DELETE cascade only ever read live rows.
const MIGRATIONS: readonly Migration<(n: Names) => string>[] = [
  {
    version: 1,
    description: "courses, classes and assessments, soft-deleted, listed oldest first",
    up: (n) => ["courses", "classes", "assessments"].map((kind) => `
      CREATE TABLE IF NOT EXISTS ${n[kind as "courses"]} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        id TEXT PRIMARY KEY,
        ${kind === "classes" ? "course_id TEXT NOT NULL," : ""}
        ${kind === "assessments" ? "class_id TEXT NOT NULL, course_id TEXT," : ""}
        name TEXT NOT NULL,
        data JSONB NOT NULL,
        created_at TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        deleted_at TIMESTAMPTZ
      );`).join("\n") + `
      CREATE INDEX IF NOT EXISTS ${n.index("courses_by_created")} ON ${n.courses} (created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX IF NOT EXISTS ${n.index("classes_by_course")} ON ${n.classes} (course_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX IF NOT EXISTS ${n.index("assessments_by_class")} ON ${n.assessments} (class_id, created_ms, seq) WHERE deleted_at IS NULL;
      CREATE INDEX IF NOT EXISTS ${n.index("assessments_by_course")} ON ${n.assessments} (course_id) WHERE deleted_at IS NULL;`,
  },
];

/**
 * Deletion is final: an upsert never clears deleted_at, and a child written under a
 * deleted parent takes the parent's deleted_at. The child locks its parent row FOR SHARE
 * so a concurrent deleteCourse either waits for it (and then sees the child) or runs
 * first (and the child sees the parent gone); it never slips between the two.
 */
function queries(n: Names) {
  const upsert = (columns: string[]) =>
    `ON CONFLICT (id) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(", ")},
      deleted_at = coalesce(cur.deleted_at, EXCLUDED.deleted_at)`;
  const shared = ["name", "data", "created_at", "created_ms"];
  const select = (extra: string) => `SELECT id, ${extra} name, data, created_at FROM`;
  return {
    putCourse: `INSERT INTO ${n.courses} AS cur (id, name, data, created_at, created_ms) VALUES ($1, $2, $3::jsonb, $4, $5)
      ${upsert(shared)}`,
    putClass: `WITH parent AS (SELECT deleted_at FROM ${n.courses} WHERE id = $6 FOR SHARE)
      INSERT INTO ${n.classes} AS cur (id, name, data, created_at, created_ms, course_id, deleted_at)
      VALUES ($1, $2, $3::jsonb, $4, $5, $6, (SELECT deleted_at FROM parent))
      ${upsert([...shared, "course_id"])}`,
    // The class row when the store knows the class (its deleted_at already reflects its
    // course), else the course row: one lock per write, so no lock-order deadlocks.
    putAssessment: `WITH cls AS (SELECT course_id, deleted_at FROM ${n.classes} WHERE id = $6 FOR SHARE),
        crs AS (SELECT deleted_at FROM ${n.courses} WHERE id = $7 AND NOT EXISTS (SELECT 1 FROM cls) FOR SHARE)
      INSERT INTO ${n.assessments} AS cur (id, name, data, created_at, created_ms, class_id, course_id, deleted_at)
      VALUES ($1, $2, $3::jsonb, $4, $5, $6, coalesce($7, (SELECT course_id FROM cls)),
        coalesce((SELECT deleted_at FROM cls), (SELECT deleted_at FROM crs)))
      ${upsert([...shared, "class_id", "course_id"])}`,
    getCourse: `${select("")} ${n.courses} WHERE id = $1 AND deleted_at IS NULL`,
    listCourses: `${select("")} ${n.courses} WHERE deleted_at IS NULL ORDER BY created_ms, seq`,
    getClass: `${select("course_id,")} ${n.classes} WHERE id = $1 AND deleted_at IS NULL`,
    listClasses: `${select("course_id,")} ${n.classes} WHERE course_id = $1 AND deleted_at IS NULL ORDER BY created_ms, seq`,
    getAssessment: `${select("class_id, course_id,")} ${n.assessments} WHERE id = $1 AND deleted_at IS NULL`,
    listAssessments: `${select("class_id, course_id,")} ${n.assessments} WHERE class_id = $1 AND deleted_at IS NULL ORDER BY created_ms, seq`,
    // Three statements in one transaction, not one statement: each takes a fresh snapshot
    // after the previous one's row locks, so it sees children committed while it waited.
    deleteCourse: [
      `UPDATE ${n.courses} SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`,
      `UPDATE ${n.classes} SET deleted_at = now() WHERE course_id = $1 AND deleted_at IS NULL`,
      // Through the class as well: an assessment stored before its class has no course_id.
      `UPDATE ${n.assessments} SET deleted_at = now() WHERE deleted_at IS NULL
        AND (course_id = $1 OR class_id IN (SELECT id FROM ${n.classes} WHERE course_id = $1))`,
    ],
  };
}

interface Row {
  id: string;
  course_id?: string | null;
  class_id?: string;
  name: string;
  data: Record<string, unknown>;
  created_at: string;
}

const toCourse = (r: Row): CourseRecord => ({ id: r.id, name: r.name, data: r.data, createdAt: r.created_at });
const toClass = (r: Row): ClassRecord => ({ ...toCourse(r), courseId: r.course_id as string });
const toAssessment = (r: Row): AssessmentRecord => ({ ...toCourse(r), classId: r.class_id as string, courseId: r.course_id ?? undefined });

const params = (r: CourseRecord) => [r.id, r.name, JSON.stringify(r.data), r.createdAt, createdMs(r.createdAt)];

async function transaction(pool: Pool, work: (client: PoolClient) => Promise<void>): Promise<void> {
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

/** Two instances starting together must not both run CREATE TABLE: one waits for the other. */
async function migrate(pool: Pool, n: Names): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('express-oral-assessments'), hashtext($1))", [n.schema]);
    // CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
    const found = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [n.schema]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA "${n.schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${n.version} (
      version INTEGER PRIMARY KEY, description TEXT NOT NULL, migrated_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>(`SELECT coalesce(max(version), 0)::int AS version FROM ${n.version}`);
    for (const step of pendingMigrations(COMPONENT, "schema", rows[0]?.version ?? 0, MIGRATIONS)) {
      await client.query(step.up(n));
      await client.query(`INSERT INTO ${n.version} (version, description) VALUES ($1, $2)`, [step.version, step.description]);
    }
  });
}

/** Only reached with a connectionString: a caller who passes a pool never needs `pg` from us. */
async function createPool(connectionString: string, logger: Logger): Promise<Pool> {
  let pg: typeof import("pg");
  try {
    pg = await import("pg");
  } catch (error) {
    const missing = (error as { code?: string }).code === "ERR_MODULE_NOT_FOUND";
    if (!missing) throw error;
    throw new ConfigurationError(COMPONENT, [{
      option: "connectionString",
      message: "needs the `pg` package, which is not installed.",
      fix: "Run `npm i pg` (an optional peer dependency of express-oral-assessments).",
    }]);
  }
  const pool = new (pg.Pool ?? pg.default.Pool)({ connectionString });
  pool.on("error", (error) => {
    logger.warn({ event: "store_connection_error", error: error.message }, "an idle PostgreSQL connection failed; the pool will open a new one");
  });
  return pool;
}

export function postgresStore(options: PostgresStoreOptions): OralStore {
  const problems = new ProblemList();
  const given = readOptions(problems, options, KNOWN);
  const { connectionString, pool } = given;
  const schema = given.schema ?? "public";
  const tablePrefix = given.tablePrefix ?? "oral_";
  if (connectionString === undefined && pool === undefined) {
    problems.add("connectionString", "is missing, and so is pool.", 'Pass connectionString: "postgres://user:password@host:5432/db", or pool: an existing pg.Pool.');
  } else if (connectionString !== undefined && pool !== undefined) {
    problems.add("pool", "was given together with connectionString; the store cannot use both.", "Keep one: connectionString (the store makes and ends its own pool) or pool (yours; the store leaves it open).");
  }
  if (connectionString !== undefined && (typeof connectionString !== "string" || connectionString.trim() === "")) {
    // Never echo the value: a connection string usually holds a password.
    problems.add("connectionString", `must be a non-empty string, got ${describe(connectionString)}.`, 'Pass e.g. "postgres://user:password@host:5432/db", often from process.env.DATABASE_URL.');
  }
  if (pool !== undefined && !isPool(pool)) {
    problems.add("pool", `must be a pg.Pool, got ${describe(pool)}.`, "Pass new pg.Pool({ … }), or use connectionString instead.");
  }
  if (typeof schema !== "string" || !IDENTIFIER.test(schema) || schema.length > 63) {
    problems.add("schema", `must be a lower-case SQL name (letters, digits, _; at most 63), got ${describe(schema)}.`, 'Pass e.g. "public" or "oral", or leave it out.');
  }
  if (typeof tablePrefix !== "string" || (tablePrefix !== "" && !IDENTIFIER.test(tablePrefix)) || tablePrefix.length > MAX_PREFIX) {
    problems.add("tablePrefix", `must be "" or a lower-case SQL name (letters, digits, _; at most ${MAX_PREFIX}), got ${describe(tablePrefix)}.`, 'Pass e.g. "oral_", or leave it out.');
  }
  if (given.logger !== undefined && (typeof given.logger !== "object" || given.logger === null)) {
    problems.add("logger", `must be a logger object (pino or console-like), got ${describe(given.logger)}.`, "Pass e.g. pino() or console, or leave it out.");
  }
  problems.throwIfAny(COMPONENT);

  const n = names(schema as string, tablePrefix as string);
  const sql = queries(n);
  const logger = toLogger(given.logger as Partial<Logger> | undefined);
  const state = lifecycle(
    COMPONENT,
    async () => {
      const owned = pool === undefined;
      const p = owned ? await createPool(connectionString as string, logger) : (pool as Pool);
      try {
        await migrate(p, n);
      } catch (error) {
        if (owned) await p.end().catch(() => undefined);
        throw error;
      }
      return { pool: p, owned };
    },
    // Only a pool the store made is the store's to end; a borrowed one belongs to the app.
    async (handle) => { if (handle.owned) await handle.pool.end(); },
  );
  const query = async (text: string, values: unknown[]): Promise<Row[]> =>
    (await (await state.ready()).pool.query<Row>(text, values)).rows;
  const one = async <R>(text: string, id: string, map: (row: Row) => R): Promise<R | undefined> => {
    const [row] = await query(text, [id]);
    return row && map(row);
  };

  return {
    async init() {
      await state.ready();
    },

    async putCourse(record) {
      checkRecord("course", record);
      await query(sql.putCourse, params(record));
    },
    getCourse: (id) => one(sql.getCourse, id, toCourse),
    listCourses: async () => (await query(sql.listCourses, [])).map(toCourse),
    async deleteCourse(id) {
      const { pool: p } = await state.ready();
      await transaction(p, async (client) => {
        for (const statement of sql.deleteCourse) await client.query(statement, [id]);
      });
    },

    async putClass(record) {
      checkRecord("class", record);
      await query(sql.putClass, [...params(record), record.courseId]);
    },
    getClass: (id) => one(sql.getClass, id, toClass),
    listClasses: async (courseId) => (await query(sql.listClasses, [courseId])).map(toClass),

    async putAssessment(record) {
      checkRecord("assessment", record);
      await query(sql.putAssessment, [...params(record), record.classId, record.courseId ?? null]);
    },
    getAssessment: (id) => one(sql.getAssessment, id, toAssessment),
    listAssessments: async (classId) => (await query(sql.listAssessments, [classId])).map(toAssessment),

    close: () => state.close(),
  };
}

function isPool(value: unknown): value is Pool {
  const v = value as Partial<Pool> | null;
  return typeof v === "object" && v !== null && typeof v.connect === "function" && typeof v.query === "function";
}
