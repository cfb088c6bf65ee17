/**
 * The store for several app instances behind a load balancer: they share one PostgreSQL
 * database, so a class created through one instance can be launched through another.
 * `pg` is an optional peer dependency, loaded only when this store creates its own pool.
 */
import { ConfigurationError, ProblemList } from "../core/configuration-error.js";
import { toLogger, type Logger } from "../core/logger.js";
import { answerFor, bodyText, checkIdempotencyKey, expiredBefore, type IdempotencyRow } from "./idempotency.js";
import { lifecycle } from "./lifecycle.js";
import type { PostgresPool } from "./postgres-pool.js";
import { migrate } from "./postgres-migrations.js";
import { names, queries, transaction } from "./postgres-schema.js";
import { postgresStoreSchema, readStoreOptions } from "./options.js";
import { checkOrganization, checkRecord, createdMs, toAssessment, toClass, toCourse, type RecordRow as Row } from "./records.js";
import { checkLaunchRecord, pageOf } from "./launch-records.js";
import { launchColumnArrays, launchColumns, listParams, positionOf, toLaunchRecord, type LaunchRow } from "./launch-rows.js";
import { postgresLti } from "./postgres-lti.js";
import type { CourseRecord, IdempotencyKey, OralStoreWithLti } from "./types.js";

export interface PostgresStoreOptions {
  /**
   * `postgres://user:password@host:5432/database`. The store creates its own pool from it
   * and ends that pool on `close()`. Give this or `pool`, not both. No default.
   */
  connectionString?: string;
  /**
   * A `pg.Pool` the app already has. The store borrows it: `close()` leaves it open. No default.
   * Typed structurally (`PostgresPool`) so the declarations do not need `pg`'s types.
   */
  pool?: PostgresPool;
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

/** $1 to $6 of every write: the organization and the shared columns of a record. */
const params = (org: string, r: CourseRecord): [string, ...unknown[]] => [org, r.id, r.name, JSON.stringify(r.data), r.createdAt, createdMs(r.createdAt)];
/** $1 to $3 of every idempotency statement: the key, whole. */
const keyOf = (k: IdempotencyKey) => [k.org, k.user, k.key];

/** Only reached with a connectionString: a caller who passes a pool never needs `pg` from us. */
async function createPool(connectionString: string, logger: Logger): Promise<PostgresPool> {
  let pg: typeof import("pg");
  try {
    pg = await import("pg");
  } catch (error) {
    // ERR_MODULE_NOT_FOUND from the ESM build's import(), MODULE_NOT_FOUND from the CommonJS build's require().
    const code = (error as { code?: string }).code;
    const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
    if (!missing) throw error;
    throw new ConfigurationError(COMPONENT, [{
      option: "connectionString",
      message: "needs the `pg` package, which is not installed.",
      fix: "Run `npm i pg` (an optional peer dependency of express-oral-assessments).",
    }]);
  }
  // Older `pg` only has a default export under import(); the CommonJS build's types have no `default`.
  const pool = new (pg.Pool ?? (pg as unknown as { default: typeof pg }).default.Pool)({ connectionString });
  pool.on("error", (error) => {
    logger.warn({ event: "store_connection_error", error: error.message }, "an idle PostgreSQL connection failed; the pool will open a new one");
  });
  return pool;
}

export function postgresStore(options: PostgresStoreOptions): OralStoreWithLti {
  const problems = new ProblemList();
  const given = readStoreOptions(problems, options, postgresStoreSchema);
  const { connectionString, pool, schema, tablePrefix } = given;
  if (options?.connectionString === undefined && options?.pool === undefined) {
    problems.add("connectionString", "is missing, and so is pool.", 'Pass connectionString: "postgres://user:password@host:5432/db", or pool: an existing pg.Pool.');
  } else if (options.connectionString !== undefined && options.pool !== undefined) {
    problems.add("pool", "was given together with connectionString; the store cannot use both.", "Keep one: connectionString (the store makes and ends its own pool) or pool (yours; the store leaves it open).");
  }
  problems.throwIfAny(COMPONENT);

  const n = names(schema, tablePrefix);
  const sql = queries(n);
  const logger = toLogger(given.logger);
  const state = lifecycle(
    COMPONENT,
    async () => {
      const owned = pool === undefined;
      const p = owned ? await createPool(connectionString as string, logger) : (pool as PostgresPool);
      try {
        await migrate(p, n, COMPONENT);
      } catch (error) {
        if (owned) await p.end().catch(() => undefined);
        throw error;
      }
      return { pool: p, owned };
    },
    // Only a pool the store made is the store's to end; a borrowed one belongs to the app.
    async (handle) => { if (handle.owned) await handle.pool.end(); },
  );
  /** Every statement's $1 is the organization: checked here, before anything is sent. */
  const query = async (text: string, values: [string, ...unknown[]]): Promise<Row[]> => {
    checkOrganization(values[0]);
    return (await (await state.ready()).pool.query(text, values)).rows as Row[];
  };
  const one = async <R>(text: string, org: string, id: string, map: (row: Row) => R): Promise<R | undefined> => {
    const [row] = await query(text, [org, id]);
    return row && map(row);
  };

  const inTransaction = async (statements: string[], org: string, id: string): Promise<void> => {
    checkOrganization(org);
    const { pool: p } = await state.ready();
    await transaction(p, async (client) => {
      for (const statement of statements) await client.query(statement, [org, id]);
    });
  };

  return {
    async init() {
      await state.ready();
    },

    async putCourse(org, record) {
      checkRecord("course", org, record);
      await query(sql.putCourse, params(org, record));
    },
    getCourse: (org, id) => one(sql.getCourse, org, id, toCourse),
    listCourses: async (org) => (await query(sql.listCourses, [org])).map(toCourse),
    deleteCourse: (org, id) => inTransaction(sql.deleteCourse, org, id),

    async putClass(org, record) {
      checkRecord("class", org, record);
      await query(sql.putClass, [...params(org, record), record.courseId]);
    },
    getClass: (org, id) => one(sql.getClass, org, id, toClass),
    listClasses: async (org, courseId) => (await query(sql.listClasses, [org, courseId])).map(toClass),
    deleteClass: (org, id) => inTransaction(sql.deleteClass, org, id),

    async putAssessment(org, record) {
      checkRecord("assessment", org, record);
      await query(sql.putAssessment, [...params(org, record), record.classId, record.courseId ?? null, record.kind ?? "oral"]);
    },
    getAssessment: (org, id) => one(sql.getAssessment, org, id, toAssessment),
    listAssessments: async (org, classId, kind = "oral") => (await query(sql.listAssessments, [org, classId, kind])).map(toAssessment),
    async deleteAssessment(org, id) {
      await query(sql.deleteAssessment, [org, id]);
    },

    async beginIdempotent(input) {
      checkIdempotencyKey(input, { bodyHash: input.bodyHash });
      const now = input.now ?? Date.now();
      const before = expiredBefore(now);
      const { pool: p } = await state.ready();
      // Separate statements, no transaction: the INSERT's primary key alone decides the
      // winner, on this instance or another; a loser reads the winner's committed row.
      await p.query(sql.purgeIdempotent, [...keyOf(input), before.record, before.pending]);
      const claimed = await p.query(sql.claimIdempotent, [...keyOf(input), input.bodyHash, now]);
      if (claimed.rowCount === 1) return { state: "new" };
      const rows = (await p.query(sql.readIdempotent, keyOf(input))).rows as IdempotencyRow[];
      // Gone between our INSERT and SELECT (abandoned, or purged): whoever holds it now, not us.
      return rows[0] ? answerFor(rows[0], input.bodyHash) : { state: "pending" };
    },
    async completeIdempotent(input) {
      checkIdempotencyKey(input, { status: input.status });
      await query(sql.completeIdempotent, [input.org, input.user, input.key, input.status, bodyText(input.body)]);
    },
    async abandonIdempotent(input) {
      checkIdempotencyKey(input);
      await query(sql.abandonIdempotent, [input.org, input.user, input.key]);
    },

    async addLaunches(org, records) {
      checkOrganization(org);
      records.forEach(checkLaunchRecord);
      if (records.length === 0) return;
      await query(sql.addLaunches, [org, ...launchColumnArrays(records.map((r) => launchColumns(org, r)))]);
    },
    async listLaunches(org, q) {
      const p = listParams(org, q);
      const rows = await query(sql.listLaunches, [org, p.kind, p.examId, p.outcome, p.student, p.cursorAt, p.cursorSeq, p.limit]);
      return pageOf(rows as unknown as LaunchRow[], q.limit, positionOf, toLaunchRecord);
    },
    async countLaunches(org, q) {
      const rows = await query(q.latestPerStudent ? sql.countLatestLaunches : sql.countLaunches, [org, q.kind, q.examId, q.since ?? 0]);
      return Object.fromEntries((rows as unknown as { outcome: string; n: number }[]).map((r) => [r.outcome, r.n]));
    },
    async purgeLaunches(before) {
      const { pool: p } = await state.ready();
      return (await p.query(sql.purgeLaunches, [before])).rowCount ?? 0;
    },
    ...postgresLti(n, () => state.ready()),

    close: () => state.close(),
  };
}
