/**
 * Loud by default: with no `logger`, what someone must act on reaches stderr as one line
 * each, without a key, a token or a password. A store that cannot be opened is found by
 * the router's start-up check (no request needed), `router.ready()` rejects with its fix,
 * and a failed score post to the LMS gradebook is one line.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ConfigurationError, createPlatformClient, oralAssessments, postgresStore, sqliteStore } from "../../src/index.js";
import { TEST_KEY } from "../support/keys.js";
import { followToExam, launchFromCourse, linkCourse, startLtiBench } from "../support/lti.js";

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
const dir = mkdtempSync(join(tmpdir(), "eoa-loud-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Every line written to stderr through console.error / console.warn from now on (not printed). */
function stderrLines(): string[] {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => { lines.push(args.map(String).join(" ")); };
  vi.spyOn(console, "error").mockImplementation(keep);
  vi.spyOn(console, "warn").mockImplementation(keep);
  return lines;
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe("the store's start-up check, with no logger", () => {
  it("a bad PostgreSQL URL: one stderr line with the fix, without a request, and ready() rejects with it (no password shown)", async () => {
    const lines = stderrLines();
    const connectionString = `postgres://oral:hunter2-secret@127.0.0.1:${await closedPort()}/oral`;
    const router = oralAssessments({ platform, canLaunch: "any-signed-in-user", isInstructor: () => true, store: postgresStore({ connectionString }) });
    try {
      await vi.waitFor(() => expect(lines.filter((l) => l.includes("store_unavailable"))).toHaveLength(1), { timeout: 10_000 });
      const [line] = lines;
      expect(line).toContain("the oral-assessments store could not be opened");
      expect(line).toContain("Check that PostgreSQL is running and reachable");
      const error = await router.ready().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).problems).toEqual([expect.objectContaining({ option: "store", fix: expect.stringContaining("PostgreSQL is running") as string })]);
      expect((error as ConfigurationError).message).toContain("ECONNREFUSED");
      for (const text of [...lines, String((error as Error).message)]) expect(text).not.toContain("hunter2");
    } finally {
      await router.close();
    }
  });

  it("an unusable SQLite path: ready() rejects naming sqliteStore's filename", async () => {
    const lines = stderrLines();
    const notAFolder = join(dir, "a-file");
    writeFileSync(notAFolder, "");
    const router = oralAssessments({ platform, canLaunch: "any-signed-in-user", isInstructor: () => true, store: sqliteStore({ filename: join(notAFolder, "oral.sqlite") }) });
    try {
      const error = (await router.ready().then(() => undefined, (e: unknown) => e)) as ConfigurationError;
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.problems[0]?.option).toBe("store");
      expect(error.problems[0]?.fix).toContain("sqliteStore({ filename })");
      expect(lines.filter((l) => l.includes("store_unavailable")).length).toBeGreaterThanOrEqual(1);
    } finally {
      await router.close().catch(() => undefined);
    }
  });
});

describe("a gradebook failure, with no logger", () => {
  it("prints one stderr line, without the LMS token", async () => {
    const bench = await startLtiBench({ emailStandIn: { domain: "lms.invalid" }, gradebook: { pollMs: 50, maxAttempts: 1 } }, { router: { logger: undefined } });
    try {
      await linkCourse(bench);
      const lines = stderrLines();
      bench.lms.setGradebookOutage(10 * 60_000);
      const { opened } = await followToExam(await launchFromCourse(bench, "student-1", bench.linkId));
      expect(opened.status).toBe(303);
      await vi.waitFor(() => expect(lines.some((l) => l.includes('"event":"lti_score"'))).toBe(true), { timeout: 20_000, interval: 50 });
      const scoreLines = lines.filter((l) => l.includes("LMS gradebook"));
      expect(scoreLines).toHaveLength(1);
      expect(scoreLines[0]).toContain("a score could not be posted to the LMS gradebook: given up");
      expect(scoreLines[0]).toMatch(/503/);
      for (const line of lines) expect(line).not.toMatch(/Bearer|access_token/);
    } finally {
      await bench.close();
    }
  });
});
