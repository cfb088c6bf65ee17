/**
 * The closing line of a CI test run: `node .ci/test-summary.mjs <vitest.json> <exit status>`.
 * Prints "PASSED: …" or "FAILED: …" and exits 1 when the run failed.
 *
 * "failed" counts failed tests plus test files that failed outside any test (an afterAll
 * hook such as the key canary's, or a file that does not load): those fail the run while
 * every test in them passed, and must not read as "0 failed". A run is PASSED only when
 * the command exited 0, the report exists and vitest called it a success.
 */
import { readFileSync } from "node:fs";

const [reportPath, statusText] = process.argv.slice(2);
const status = Number(statusText);

let report;
try {
  report = JSON.parse(readFileSync(reportPath, "utf8"));
} catch {
  console.log(`FAILED: no test report (${reportPath}): the test command exited with status ${status} before vitest wrote one; see its output above.`);
  process.exit(1);
}

const files = report.testResults ?? [];
const failedOutsideTests = files.filter((f) => f.status === "failed" && (f.assertionResults ?? []).every((a) => a.status !== "failed")).length;
const failed = report.numFailedTests + failedOutsideTests;
const skipped = report.numPendingTests + report.numTodoTests;
const passed = failed === 0 && status === 0 && report.success === true;

const reasons = [];
if (failed === 0 && report.success !== true) reasons.push("vitest reported the run as failed for a reason no count shows");
if (failed === 0 && status !== 0) reasons.push(`the test command exited with status ${status}`);

console.log(`test files: ${report.numPassedTestSuites} ok, ${report.numFailedTestSuites} not ok (${failedOutsideTests} failed outside any test)`);
console.log(`${passed ? "PASSED" : "FAILED"}: ${report.numPassedTests} passed, ${failed} failed, ${skipped} skipped${reasons.length > 0 ? ` (${reasons.join("; ")})` : ""}`);
process.exit(passed ? 0 : 1);
