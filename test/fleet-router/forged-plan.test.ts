/**
 * The attacker's story, end to end over HTTP on two router instances (separate processes,
 * one Redis, one PostgreSQL schema with a roster table for `canLaunch`, one emulator).
 * Student s7 may launch exam X (class A) but not exam Y (class B): the roster check
 * answers 403. With write access to Redis, the attacker publishes a pre-warm plan for
 * exam X that names class B and lists s7, as `redis-cli` would. The fleet must not run
 * it: no sign-in call for class B, s7 not enrolled there, and s7's launch of X, through
 * either instance, carries a token of class A. Each instance logs one warn line naming
 * the refused plan input, never the student.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { startTestEmulator } from "../support/emulator.js";
import { TEST_KEY } from "../support/keys.js";
import { freePort, redisOrSkip, SECRET, startRedisServer } from "../support/redis.js";
import { seedExam, type ExamIds } from "../support/seed.js";
import { rosterOf } from "../support/users.js";
import { startInstance, stopInstance, type FleetInstance } from "./fleet.js";

const POSTGRES_URL = process.env.EOA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const pgDown = await new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 }).connect()
  .then(async (client) => { await client.end(); return undefined; }, (error: Error) => error.message);
const redisUp = await redisOrSkip("the forged pre-warm plan test");
if (pgDown !== undefined && process.env.CI) {
  describe("a forged pre-warm plan", () => it("needs a reachable PostgreSQL in CI", () => { throw new Error(`PostgreSQL is unreachable (${pgDown})`); }));
} else if (pgDown !== undefined) {
  console.warn(`\n${"!".repeat(78)}\n!!! SKIPPING the forged pre-warm plan test: no PostgreSQL (${pgDown}). In CI this is a failure.\n${"!".repeat(78)}\n`);
}

const until = async (check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** The class a platform sign-in ticket was issued for (the emulator's tickets are JWTs). */
function classOfTicket(location: string | null): string | undefined {
  const ticket = new URL(location ?? "http://x/").searchParams.get("__clerk_ticket") ?? "";
  const payload = ticket.replace(/^signin_/, "").split(".")[1];
  return payload ? (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { classId?: string }).classId : undefined;
}

describe.runIf(redisUp && pgDown === undefined)("a pre-warm plan written into Redis by an attacker", () => {
  const schema = `eoa_forged_${randomBytes(4).toString("hex")}`;
  const prefix = `eoaforged${randomBytes(3).toString("hex")}`;
  const student = rosterOf("s7");
  let emulator: Emulator;
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let client: Redis;
  let admin: pg.Client;
  let instances: FleetInstance[] = [];
  let x: ExamIds;
  let y: ExamIds;

  const on = (instance: FleetInstance, user: string, path: string, body?: unknown) => fetch(`http://127.0.0.1:${instance.port}/oral${path}`, {
    method: body === undefined ? "GET" : "POST", redirect: "manual",
    headers: { "x-test-user": user, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const signInsFor = (classId: string) => emulator.requests.filter((r) => r.path === "/students/sign-in-token" && (r.body as { classId?: string } | undefined)?.classId === classId);
  const refusedInputs = () => instances.flatMap((i) => i.logs.filter((l) => l.event === "fleet_value_refused" && l.what === "plan input"));

  beforeAll(async () => {
    emulator = await startTestEmulator({ rateLimits: { dev: 600 } });
    redis = await startRedisServer(await freePort());
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(`CREATE TABLE "${schema}".test_roster (class_id text NOT NULL, user_id text NOT NULL)`);
    const env = {
      FLEET_REDIS_URL: redis.url, FLEET_SECRET: SECRET, FLEET_PREFIX: prefix,
      FLEET_API_KEY: TEST_KEY, FLEET_EMULATOR_URL: emulator.url, FLEET_EXAM_HOST: emulator.examHost,
      FLEET_POSTGRES_URL: POSTGRES_URL, FLEET_SCHEMA: schema, FLEET_ROSTER_TABLE: `"${schema}".test_roster`,
    };
    instances = await Promise.all(Array.from({ length: 2 }, () => startInstance(env)));
    for (const instance of instances) {
      await until(async () => ((await (await fetch(`http://127.0.0.1:${instance.port}/instance`)).json()) as { shared: boolean }).shared, 10_000);
    }
    const post = async (path: string, body: unknown) => {
      const res = await on(instances[0]!, "ines", path.replace(/^\/oral/, ""), body);
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}`);
      return (await res.json()) as { data: { _id: string } };
    };
    x = await seedExam(post);
    y = await seedExam(post);
    await admin.query(`INSERT INTO "${schema}".test_roster (class_id, user_id) VALUES ($1, $2)`, [x.classId, student.orgInternalId]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => stopInstance(i)));
    client?.disconnect();
    await redis?.stop();
    await emulator?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  }, 60_000);

  it("is not run: nobody is enrolled in the other class, and the student's launch carries a token of the exam's own class", async () => {
    // The roster check refuses s7 on class B's exam.
    expect((await on(instances[0]!, "s7", `/launch/${y.examId}`)).status).toBe(403);
    expect(signInsFor(y.classId)).toHaveLength(0);

    const forged = { examId: x.examId, classId: y.classId, courseId: y.courseId, startAt: Date.now() + 30_000, roster: [student], version: "forged" };
    await client.set(`${prefix}:plan:{${x.examId}}:input`, JSON.stringify(forged), "PX", 3_600_000);
    await client.zadd(`${prefix}:plans:active`, Date.now() + 3_600_000, x.examId);
    // Either every instance refused it, or (the bug) the fleet issued a token for it.
    await until(() => refusedInputs().length >= instances.length || signInsFor(y.classId).length > 0, 30_000);

    expect(signInsFor(y.classId)).toHaveLength(0);
    expect(emulator.state().students.filter((s) => s.classId === y.classId)).toEqual([]);
    const lines = JSON.stringify(refusedInputs());
    expect(lines).not.toContain(student.orgInternalId);
    expect(lines).not.toContain(student.email);

    // Launched through each instance (the plan's would-be leader and the other): a token of class A.
    for (const instance of instances) {
      const launch = await on(instance, "s7", `/launch/${x.examId}`);
      expect(launch.status).toBe(303);
      expect(classOfTicket(launch.headers.get("location"))).toBe(x.classId);
    }
    expect(emulator.state().students.filter((s) => s.orgInternalId === student.orgInternalId).map((s) => s.classId)).toEqual([x.classId]);
  }, 90_000);
});
