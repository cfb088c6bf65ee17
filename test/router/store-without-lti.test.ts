/**
 * LTI owns its persistence (docs/stores.md, "A custom store"): a custom store needs the LTI
 * methods only when the router has `lti`, and `lti.store` can hold LTI's tables apart from
 * the exam records. Real servers: the emulator, the LMS emulator, a session app, a SQLite file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, DEFAULT_ORGANIZATION, memoryStore, oralAssessments, sqliteStore, type OralStore } from "../../src/index.js";
import { STORE_METHODS } from "../../src/store/types.js";
import { LTI_STORE_METHODS } from "../../src/store/lti-types.js";
import { followToExam, launchFromCourse, linkCourse, startLtiBench, TOOL_KEY_PEM } from "../support/lti.js";
import { startStack } from "../support/stack.js";
import { TEST_KEY } from "../support/keys.js";

/** A store with the exam-record methods only (a memory store's, bound): what an app's own store may be. */
function examRecordsOnly(): OralStore {
  const inner = memoryStore() as unknown as Record<string, (...args: unknown[]) => unknown>;
  return Object.fromEntries(STORE_METHODS.map((m) => [m, inner[m]!.bind(inner)])) as unknown as OralStore;
}

const dir = mkdtempSync(join(tmpdir(), "eoa-lti-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a custom store without the LTI methods", () => {
  it("has none of them (the test's premise)", () => {
    const store = examRecordsOnly() as unknown as Record<string, unknown>;
    for (const m of LTI_STORE_METHODS) expect(store[m], m).toBeUndefined();
  });

  it("starts a router with no lti option, which creates and launches exams", async () => {
    const stack = await startStack({ router: { store: examRecordsOnly() } });
    try {
      await expect(stack.app.router.ready()).resolves.toBeUndefined();
      const { examId } = await stack.seedExam();
      const student = await stack.login("ada");
      const launch = await student.get(`/oral/launch/${examId}`);
      expect(launch.status).toBe(303);
      expect(new URL(launch.headers.location!).origin).toBe(stack.emulator.examHost);
      const records = await (await stack.login("ines")).get(`/oral/oral-assessments/${examId}/launches`).expect(200);
      expect(records.body.meta.gradebook).toBeUndefined();
    } finally {
      await stack.close();
    }
  });

  it("with lti and no lti.store, is one configuration error naming store, the methods missing and the fix", () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    let error: unknown;
    try {
      oralAssessments({ platform, canLaunch: "any-signed-in-user", store: examRecordsOnly(), lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }] } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = [...(error as ConfigurationError).problems];
    expect(problems.map((p) => p.option)).toEqual(["store"]);
    expect(problems[0]!.message).toContain("putLtiRegistration");
    expect(problems[0]!.message).toContain("claimLtiScores");
    expect(problems[0]!.fix).toContain("lti.store");
  });

  it("with lti.store on a SQLite file, launches from the LMS: LTI's rows in that file, the exam records in the app's store", async () => {
    const filename = join(dir, "lti.sqlite");
    const bench = await startLtiBench({ store: sqliteStore({ filename }) }, { router: { store: examRecordsOnly() } });
    try {
      await linkCourse(bench);
      const launch = await launchFromCourse(bench, "student-1", bench.linkId);
      const { examUrl } = await followToExam(launch);
      expect(examUrl?.origin).toBe(bench.stack.emulator.examHost);
      // Read back from the file by another store: the course link the instructor's launch made is there.
      const reader = sqliteStore({ filename });
      try {
        const course = { issuer: bench.lms.issuer, clientId: bench.lms.clientId, deploymentId: bench.lms.deploymentId, contextId: "course-1" };
        const links = await reader.listLtiCourseLinks(DEFAULT_ORGANIZATION, { course });
        expect(links.map((l) => l.contextId)).toEqual(["course-1"]);
      } finally {
        await reader.close();
      }
    } finally {
      await bench.close();
    }
  });
});
