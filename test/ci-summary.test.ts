/**
 * `.ci/run`'s test step, `.ci/run-tests <command>`, run exactly as CI runs it but on small
 * stand-in commands in a scratch folder: its closing PASSED/FAILED line must be true,
 * above all when the test command dies before vitest writes its report while an earlier
 * run's report is still lying around.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const script = join(import.meta.dirname, "..", ".ci", "run-tests");
let dir = "";

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "eoa-ci-"));
  mkdirSync(join(dir, "test-artifacts"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A vitest JSON report, as `reporters: [["json", …]]` writes it. */
function report(fields: { passed: number; failed: number; skipped?: number; success: boolean; fileFailedOutsideTests?: boolean }) {
  return JSON.stringify({
    numPassedTestSuites: 1, numFailedTestSuites: fields.fileFailedOutsideTests ? 1 : 0,
    numPassedTests: fields.passed, numFailedTests: fields.failed, numPendingTests: fields.skipped ?? 0, numTodoTests: 0,
    success: fields.success,
    testResults: fields.fileFailedOutsideTests ? [{ status: "failed", assertionResults: [{ status: "passed" }] }] : [],
  });
}

/** Runs `.ci/run-tests` with a shell command standing in for `npm test`. */
function runTests(command: string) {
  const result = spawnSync(script, ["sh", "-c", command], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

const writeReport = (json: string) => `printf '%s' '${json}' > test-artifacts/vitest.json`;

describe(".ci/run-tests", () => {
  it("says FAILED (no report) when vitest dies, even with an earlier run's PASSED report left over", () => {
    writeFileSync(join(dir, "test-artifacts", "vitest.json"), report({ passed: 500, failed: 0, success: true }));
    const { status, out } = runTests("exit 137");
    expect(status).toBe(137);
    expect(out).toMatch(/^FAILED: no test report .*status 137/m);
    expect(out).not.toContain("PASSED");
  });

  it("says PASSED with the counts when the command exits 0 and the report is a success", () => {
    const { status, out } = runTests(writeReport(report({ passed: 12, failed: 0, skipped: 2, success: true })));
    expect(status).toBe(0);
    expect(out).toContain("PASSED: 12 passed, 0 failed, 2 skipped");
  });

  it("counts a file that failed outside any test (an afterAll hook) as a failure", () => {
    const { status, out } = runTests(`${writeReport(report({ passed: 12, failed: 0, success: false, fileFailedOutsideTests: true }))}; exit 1`);
    expect(status).toBe(1);
    expect(out).toContain("FAILED: 12 passed, 1 failed, 0 skipped");
    expect(out).toContain("(1 failed outside any test)");
  });

  it("says FAILED when the command fails though the report counts no failure, and fails a run whose report does", () => {
    const exitedBadly = runTests(`${writeReport(report({ passed: 3, failed: 0, success: true }))}; exit 2`);
    expect(exitedBadly.status).toBe(2);
    expect(exitedBadly.out).toContain("FAILED: 3 passed, 0 failed, 0 skipped (the test command exited with status 2)");

    const reportedFailure = runTests(writeReport(report({ passed: 3, failed: 1, success: false })));
    expect(reportedFailure.status).toBe(1);
    expect(reportedFailure.out).toContain("FAILED: 3 passed, 1 failed");
  });
});
