/**
 * One randomized differential test of the three stores: the same random sequence of
 * operations (courses, classes, exams and their deletion; idempotency claims; launch
 * records, their pages, counts and purge; LTI registrations, deployments, course links
 * and exam copies) is run against memoryStore, sqliteStore (a file in a temp folder) and
 * postgresStore (its own schema), and every answer must be the same.
 *
 * Each run works in its own organization (and its own LTI issuers), so the stores are
 * created once; the few operations that cross organizations (the idempotency expiry,
 * the launch purge) see the same history in all three, since all three get every run.
 * Cursors are opaque (their sequence numbers are each store's own): pages are compared
 * by their records and whether another follows, then each store follows its own cursor.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import { postgresStore } from "../../src/store/postgres.js";
import { sqliteStore } from "../../src/store/sqlite.js";
import type { LaunchRecord, OralStoreWithLti } from "../../src/store/types.js";

const url = process.env.EOA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const schema = `eoa_diff_${randomBytes(4).toString("hex")}`;
const dir = mkdtempSync(join(tmpdir(), "eoa-diff-"));
const BACKENDS = ["memory", "sqlite", "postgres"] as const;
let stores: OralStoreWithLti[] = [];

const reachable = await (async () => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
})();

beforeAll(async () => {
  if (!reachable && !process.env.CI) return;
  stores = [memoryStore(), sqliteStore({ filename: join(dir, "diff.sqlite") }), postgresStore({ connectionString: url, schema })];
  for (const store of stores) await store.init();
});

afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
  if (!reachable) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

// ---- the operations ---------------------------------------------------------------------
/** Few ids, so that operations meet: a class under a deleted course, an exam put twice. */
const courseId = fc.constantFrom("c1", "c2", "c3");
const classId = fc.constantFrom("k1", "k2", "k3");
const examId = fc.constantFrom("e1", "e2", "e3");
const kind = fc.constantFrom("oral" as const, "roleplay" as const);
/** Equal instants and offsets: lists sort by the instant, ties by insertion. */
const createdAt = fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00.000+02:00", "2026-01-02T00:00:00.500Z");
const data = fc.record({ n: fc.integer({ min: -5, max: 5 }), tag: fc.constantFrom("a", "b", "ü") }, { requiredKeys: ["n"] });
const T = Date.parse("2026-03-01T09:00:00.000Z");
const launch = fc.record({
  at: fc.integer({ min: 0, max: 4 }).map((s) => new Date(T + s * 1000).toISOString()),
  kind,
  examId,
  outcome: fc.constantFrom("redirected", "waiting", "forbidden"),
  status: fc.constantFrom(303, 202, 403),
  servedBy: fc.constantFrom("prepared" as const, "on_demand" as const, "none" as const),
  via: fc.constantFrom("link" as const, "lti" as const),
  student: fc.constantFrom({ orgInternalId: "s1", email: "s1@x.example" }, { orgInternalId: "s2", email: "s2@x.example" }),
  instance: fc.option(fc.constantFrom("i1", "i2"), { nil: undefined }),
}, { requiredKeys: ["at", "kind", "examId", "outcome", "status", "servedBy", "via", "student"] });
const issuer = fc.constantFrom("https://lms-a.example", "https://lms-b.example");
const ltiCourse = fc.record({ issuer, clientId: fc.constantFrom("x", "y"), deploymentId: fc.constantFrom("d1", "d2"), contextId: fc.constantFrom("ctx1", "ctx2") });
const idemKey = fc.record({ user: fc.constantFrom("u1", "u2"), key: fc.constantFrom("a", "b") });

/** Weighted: the record tree (where deletions cascade) is where the stores differ most easily. */
const recordOperation = fc.oneof(
  fc.record({ op: fc.constant("putCourse" as const), id: courseId, name: fc.constantFrom("A", "B"), data, createdAt }),
  fc.record({ op: fc.constant("putClass" as const), id: classId, courseId, name: fc.constantFrom("A", "B"), data, createdAt }),
  fc.record({ op: fc.constant("putAssessment" as const), id: examId, kind, classId, courseId: fc.option(courseId, { nil: undefined }), data, createdAt }),
  fc.record({ op: fc.constantFrom("deleteCourse" as const, "getCourse" as const), id: courseId }),
  fc.record({ op: fc.constantFrom("deleteClass" as const, "getClass" as const), id: classId }),
  fc.record({ op: fc.constantFrom("deleteAssessment" as const, "getAssessment" as const), id: examId }),
  fc.record({ op: fc.constant("listCourses" as const) }),
  fc.record({ op: fc.constant("listClasses" as const), courseId }),
  fc.record({ op: fc.constant("listAssessments" as const), classId, kind }),
);
const idempotencyOperation = fc.oneof(
  fc.record({ op: fc.constant("beginIdempotent" as const), idem: idemKey, bodyHash: fc.constantFrom("h1", "h2"), advanceMs: fc.constantFrom(0, 60_000, 6 * 60_000, 25 * 3_600_000) }),
  fc.record({ op: fc.constant("completeIdempotent" as const), idem: idemKey, status: fc.constantFrom(201, 409), body: fc.constantFrom({ id: 1 }, null, "x") }),
  fc.record({ op: fc.constant("abandonIdempotent" as const), idem: idemKey }),
);
const otherOperation = fc.oneof(
  fc.record({ op: fc.constant("addLaunches" as const), records: fc.array(launch, { maxLength: 4 }) }),
  fc.record({
    op: fc.constant("listLaunches" as const), kind, examId, limit: fc.integer({ min: 1, max: 3 }),
    outcome: fc.option(fc.constantFrom("redirected", "waiting"), { nil: undefined }), student: fc.option(fc.constantFrom("s1", "s2@x.example"), { nil: undefined }),
  }),
  fc.record({ op: fc.constant("countLaunches" as const), kind, examId, since: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }), latestPerStudent: fc.boolean() }),
  fc.record({ op: fc.constant("purgeLaunches" as const), before: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ op: fc.constant("putLtiRegistration" as const), issuer, clientId: fc.constantFrom("x", "y"), active: fc.boolean(), organization: fc.option(fc.constant("o1"), { nil: undefined }), createdAt }),
  fc.record({ op: fc.constantFrom("getLtiRegistration" as const, "deleteLtiRegistration" as const), issuer, clientId: fc.constantFrom("x", "y") }),
  fc.record({ op: fc.constant("setLtiRegistrationActive" as const), issuer, clientId: fc.constantFrom("x", "y"), active: fc.boolean() }),
  fc.record({ op: fc.constant("putLtiDeployment" as const), issuer, clientId: fc.constantFrom("x", "y"), id: fc.constantFrom("d1", "d2"), organization: fc.option(fc.constant("o2"), { nil: undefined }) }),
  fc.record({ op: fc.constant("listLtiRegistrations" as const) }),
  fc.record({ op: fc.constantFrom("putLtiCourseLink" as const, "getLtiCourseLink" as const), course: ltiCourse, classId }),
  fc.record({ op: fc.constant("listLtiCourseLinks" as const), of: fc.oneof(classId.map((id) => ({ classId: id })), ltiCourse.map((course) => ({ course }))) }),
  fc.record({ op: fc.constantFrom("putLtiExamCopy" as const, "getLtiExamCopy" as const), course: ltiCourse, from: examId, to: examId }),
);
const operation = fc.oneof(
  { weight: 5, arbitrary: recordOperation },
  { weight: 1, arbitrary: idempotencyOperation },
  { weight: 3, arbitrary: otherOperation },
);
type Operation = typeof operation extends fc.Arbitrary<infer O> ? O : never;

/** A run's world: its organization, its LTI issuers (registrations are global), the idempotency clock. */
interface Run { org: string; iss: (issuer: string) => string; now: number }

/** The answer of one operation on one store: its value, or the name of what it threw. */
async function apply(store: OralStoreWithLti, run: Run, o: Operation): Promise<unknown> {
  const { org } = run;
  switch (o.op) {
    case "putCourse": return store.putCourse(org, { id: o.id, name: o.name, data: o.data, createdAt: o.createdAt });
    case "putClass": return store.putClass(org, { id: o.id, courseId: o.courseId, name: o.name, data: o.data, createdAt: o.createdAt });
    case "putAssessment": return store.putAssessment(org, { id: o.id, kind: o.kind, classId: o.classId, courseId: o.courseId, name: "E", data: o.data, createdAt: o.createdAt });
    case "deleteCourse": return store.deleteCourse(org, o.id);
    case "getCourse": return store.getCourse(org, o.id);
    case "deleteClass": return store.deleteClass(org, o.id);
    case "getClass": return store.getClass(org, o.id);
    case "deleteAssessment": return store.deleteAssessment(org, o.id);
    case "getAssessment": return store.getAssessment(org, o.id);
    case "listCourses": return store.listCourses(org);
    case "listClasses": return store.listClasses(org, o.courseId);
    case "listAssessments": return store.listAssessments(org, o.classId, o.kind);
    case "beginIdempotent": return store.beginIdempotent({ org, ...o.idem, bodyHash: o.bodyHash, now: run.now });
    case "completeIdempotent": return store.completeIdempotent({ org, ...o.idem, status: o.status, body: o.body });
    case "abandonIdempotent": return store.abandonIdempotent({ org, ...o.idem });
    case "addLaunches": return store.addLaunches(org, o.records as LaunchRecord[]);
    case "listLaunches": {
      const pages: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listLaunches(org, {
          kind: o.kind, examId: o.examId, limit: o.limit,
          ...(o.outcome === undefined ? {} : { outcome: o.outcome }), ...(o.student === undefined ? {} : { student: o.student }), ...(cursor === undefined ? {} : { cursor }),
        });
        pages.push({ records: page.records, more: page.nextCursor !== undefined });
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return pages;
    }
    case "countLaunches": return store.countLaunches(org, { kind: o.kind, examId: o.examId, latestPerStudent: o.latestPerStudent, ...(o.since === undefined ? {} : { since: T + o.since * 1000 }) });
    case "purgeLaunches": return store.purgeLaunches(T + o.before * 1000);
    case "putLtiRegistration": return store.putLtiRegistration({
      issuer: run.iss(o.issuer), clientId: o.clientId, authorizationUrl: `${o.issuer}/auth`, jwksUrl: `${o.issuer}/jwks`, active: o.active, acceptNewDeployments: !o.active,
      ...(o.organization === undefined ? {} : { organization: o.organization }), data: { product: "moodle" }, createdAt: o.createdAt,
    });
    case "getLtiRegistration": return store.getLtiRegistration(run.iss(o.issuer), o.clientId);
    case "deleteLtiRegistration": return store.deleteLtiRegistration(run.iss(o.issuer), o.clientId);
    case "setLtiRegistrationActive": return store.setLtiRegistrationActive(run.iss(o.issuer), o.clientId, o.active);
    case "putLtiDeployment": return store.putLtiDeployment(run.iss(o.issuer), o.clientId, { id: o.id, ...(o.organization === undefined ? {} : { organization: o.organization }) });
    case "listLtiRegistrations": return (await store.listLtiRegistrations()).filter((r) => r.issuer.startsWith(run.iss("")));
    case "putLtiCourseLink": return store.putLtiCourseLink(org, { ...o.course, classId: o.classId, linkedBy: "teacher", linkedAt: "2026-02-01T00:00:00.000Z" });
    case "getLtiCourseLink": return store.getLtiCourseLink(org, o.course, o.classId);
    case "listLtiCourseLinks": return store.listLtiCourseLinks(org, o.of);
    case "putLtiExamCopy": return store.putLtiExamCopy(org, o.course, o.from, o.to);
    case "getLtiExamCopy": return store.getLtiExamCopy(org, o.course, o.from);
  }
}

const WRITES = new Set(["putCourse", "putClass", "putAssessment", "deleteCourse", "deleteClass", "deleteAssessment"]);

/** Everything the record tree shows after a write: every get and list of the run's ids (a later write could hide a difference). */
async function snapshot(store: OralStoreWithLti, org: string): Promise<unknown> {
  const ids = (prefix: string) => [1, 2, 3].map((i) => `${prefix}${i}`);
  return Promise.all([
    store.listCourses(org),
    ...ids("c").flatMap((id) => [store.getCourse(org, id), store.listClasses(org, id)]),
    ...ids("k").flatMap((id) => [store.getClass(org, id), store.listAssessments(org, id, "oral"), store.listAssessments(org, id, "roleplay")]),
    ...ids("e").map((id) => store.getAssessment(org, id)),
  ]);
}

let runs = 0;
let clock = Date.now();

/** Runs `ops` on every store in step; the first operation whose answers differ fails, naming the stores. */
async function runOnAll(ops: Operation[]): Promise<void> {
  const n = runs++;
  const run: Run = { org: `diff${n}`, iss: (issuer) => `${issuer}/run${n}`, now: clock };
  for (const [i, o] of ops.entries()) {
    if (o.op === "beginIdempotent") run.now = clock += o.advanceMs;
    const answers = await Promise.all(stores.map((store) => apply(store, run, o).then(
      (value) => ({ value }),
      (error: Error) => ({ threw: error.name }),
    )));
    for (const [b, answer] of answers.entries()) {
      expect(answer, `operation ${i} (${o.op}): ${BACKENDS[b]} answers unlike memory`).toEqual(answers[0]);
    }
    if (!WRITES.has(o.op)) continue;
    const seen = await Promise.all(stores.map((store) => snapshot(store, run.org)));
    for (const [b, state] of seen.entries()) {
      expect(state, `after operation ${i} (${o.op}): ${BACKENDS[b]} shows unlike memory`).toEqual(seen[0]);
    }
  }
}

// No PostgreSQL: skipped here, a failure in CI (as test/store/postgres.test.ts).
describe.skipIf(!reachable && !process.env.CI)("the three stores give the same answers (memory, SQLite, PostgreSQL)", () => {
  it("to a random sequence of operations", async () => {
    await fc.assert(fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 60, size: "max" }), runOnAll), {
      numRuns: Number(process.env.EOA_DIFF_RUNS ?? 30),
      ...(process.env.EOA_DIFF_SEED ? { seed: Number(process.env.EOA_DIFF_SEED) } : {}),
    });
  }, 300_000);

  it("hide an exam put with a deleted course under a live class of another course", async () => {
    await runOnAll([
      { op: "putCourse", id: "c1", name: "A", data: { n: 0 }, createdAt: "2026-01-01T00:00:00.000Z" },
      { op: "putCourse", id: "c2", name: "B", data: { n: 0 }, createdAt: "2026-01-01T00:00:00.000Z" },
      { op: "putClass", id: "k1", courseId: "c1", name: "A", data: { n: 0 }, createdAt: "2026-01-01T00:00:00.000Z" },
      { op: "deleteCourse", id: "c2" },
      { op: "putAssessment", id: "e1", kind: "oral", classId: "k1", courseId: "c2", data: { n: 0 }, createdAt: "2026-01-01T00:00:00.000Z" },
      { op: "getAssessment", id: "e1" },
      { op: "listAssessments", classId: "k1", kind: "oral" },
    ]);
  });
});
