/**
 * postgresStore against a real PostgreSQL (postgres-support.ts): the OralStore contract,
 * deleteCourse racing concurrent writes, and the options. Every run works in its own
 * schemas, dropped at the end. With no server: CI fails this file; elsewhere it is skipped
 * with a loud warning. Schemas and migrations: postgres-migrations.test.ts; pools and
 * failures: postgres-pools.test.ts.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { postgresStore, type PostgresStoreOptions } from "../../src/store/postgres.js";
import type { OralStore } from "../../src/store/types.js";
import { describeStoreContract } from "./store-contract.js";
import { postgresOrSkip, url, usePostgres } from "./postgres-support.js";

const ORG = "north";
const reachable = await postgresOrSkip();

describe.runIf(reachable)("postgresStore", () => {
  const { schema, store } = usePostgres();

  describeStoreContract("postgresStore", (place) => store({ schema: schema(), tablePrefix: `${place}_` }), { persistent: true });

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
