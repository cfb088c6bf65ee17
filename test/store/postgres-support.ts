/**
 * PostgreSQL for the postgresStore tests: a real server (default
 * postgres://postgres@127.0.0.1:5432/test, or EOA_TEST_POSTGRES_URL), the "fail in CI,
 * skip loudly elsewhere" rule, and schemas of this run, each unique and dropped after the
 * file's tests.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, it } from "vitest";
import { postgresStore, type PostgresStoreOptions } from "../../src/store/postgres.js";

export const url = process.env.EOA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The URL as printed: a password set through the environment stays out of the log. */
const shown = url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");

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

/**
 * Call at the top of a PostgreSQL test file: true when its suites may run. Without a
 * server, under CI a failing test is registered; elsewhere a loud warning is printed.
 */
export async function postgresOrSkip(): Promise<boolean> {
  const unreachable = await probe();
  if (unreachable === undefined) return true;
  if (process.env.CI) {
    describe("postgresStore", () => {
      it("needs a reachable PostgreSQL in CI", () => {
        throw new Error(`PostgreSQL at ${shown} is unreachable (${unreachable}); CI must run the PostgreSQL store tests. Start a postgres service on 127.0.0.1:5432 with a "test" database.`);
      });
    });
  } else {
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
  return false;
}

/** What a test file works in: an admin pool, this run's name, its schemas and stores on them. */
export interface PostgresRun {
  admin: pg.Pool;
  /** Unique to this file's run: the prefix of its schemas and application names. */
  run: string;
  /** A schema of this run: unique, and dropped after the file's tests. */
  schema(suffix?: string): string;
  /** A postgresStore on this server (options added to the connection string). */
  store(options?: Partial<PostgresStoreOptions>): ReturnType<typeof postgresStore>;
}

/** Call inside the file's `describe`: the run's schemas are dropped and its admin pool ended after its tests. */
export function usePostgres(): PostgresRun {
  const run = `eoa_test_${randomBytes(4).toString("hex")}`;
  const schemas = new Set<string>();
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(async () => {
    for (const name of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    await admin.end();
  });
  return {
    admin, run,
    schema(suffix = "") {
      const name = suffix ? `${run}_${suffix}` : run;
      schemas.add(name);
      return name;
    },
    store: (options = {}) => postgresStore({ connectionString: url, ...options }),
  };
}
