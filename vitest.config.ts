import { configDefaults, defineConfig } from "vitest/config";
import { SlowFirstSequencer } from "./test/support/slow-first-sequencer.js";

/**
 * Test files that need a process of their own: a warning emitted once per process
 * (deprecations, the key limit's), or a heap they measure (what 5,000 logins keep, nothing
 * kept per mount-path spelling, an idle fleet's objects collected). Every other file
 * shares its worker's modules with the files before it (`isolate: false`): importing
 * express, zod, axios and our schemas afresh for each of ~200 files took ~40 % of the
 * workers' time. No other file keeps state across files (servers, stores and Redis
 * keys are per test), which `--sequence.shuffle` runs check.
 */
const OWN_PROCESS = [
  "test/router/prewarm-deprecated.test.ts",
  "test/router/lti-deprecated-seconds.test.ts",
  "test/router/lti-login-limit-deprecated.test.ts",
  "test/fleet/key-limit.test.ts",
  "test/fleet/idle-expiry.test.ts",
  "test/router/openapi-spellings.test.ts",
  "test/router/lti-login-flood.test.ts",
  "test/lti/prepare-heap.test.ts",
];

/** How many files run at once: EOA_TEST_WORKERS, else 3 (see `maxWorkers` below). */
function workers(): number {
  const raw = process.env.EOA_TEST_WORKERS;
  if (raw === undefined || raw === "") return 3;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`EOA_TEST_WORKERS must be a whole number of at least 1 (it is "${raw}")`);
  return n;
}

/**
 * `--sequence.shuffle.files` (docs/development.md: no file depends on the order) orders files
 * at random only when no sequencer is configured: leave ours out of such a run.
 */
const SHUFFLED = process.argv.some((arg) => arg.startsWith("--sequence.shuffle"));

/**
 * Projects: the whole suite on Express 5, and the suites that mount the router again with `express`
 * resolved to Express 4 (the `express4` dev dependency), in our source and tests alike,
 * so both majors are proven in every run.
 */
export default defineConfig({
  test: {
    // Every test talks HTTP to real servers on 127.0.0.1; give slow CI machines room.
    testTimeout: 30_000,
    // Three files at a time on the 2-core machines we run on: most tests wait on windows,
    // leases and latency, not on the CPU (an idle run used the CPU ~36 % of its span with
    // two). Idle, 2026-11-29, `CI=true npm test`: 2 workers 373 s, 3 workers 272 s, 4 workers
    // 235 s with one fleet test retried (restart-races). Set EOA_TEST_WORKERS to change it:
    // vitest's `--maxWorkers` flag does not reach these projects (they take this value
    // through `extends: true`; a run with `--maxWorkers 3` still ran two files at a time).
    maxWorkers: workers(),
    // The slowest files first, the isolated ones before all (test/support/slow-first-sequencer.ts):
    // vitest's own order left a 30 s file running alone at the end.
    sequence: SHUFFLED ? {} : { sequencer: SlowFirstSequencer },
    hookTimeout: 60_000,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/key-canary.setup.ts"],
    // In CI also write a JSON report: .ci/run prints the plain "N passed, N failed" line from it.
    reporters: process.env.CI ? ["default", ["json", { outputFile: "test-artifacts/vitest.json" }]] : ["default"],
    projects: [
      {
        extends: true,
        test: { name: "express5", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...OWN_PROCESS], isolate: false },
      },
      {
        extends: true,
        // The same Express 5, one fresh module graph per file (see OWN_PROCESS).
        test: { name: "express5-own-process", include: OWN_PROCESS },
      },
      {
        extends: true,
        // The suites that answer through Express's routing: every route, mount path, body,
        // error and stream of the router, the LTI course pages and the OpenAPI answers.
        test: {
          name: "express4",
          include: ["test/router/**/*.test.ts", "test/storm/paths.test.ts", "test/openapi*.test.ts", "test/lti/prepare-course.test.ts"],
          // Run once, under Express 5: the heap tests measure our handlers (nothing kept
          // per mount-path spelling; what 5,000 logins keep), not Express's routing, and
          // took 100-270 s each on a loaded machine in each project. (The pack test is
          // outside test/router: once already.) The metrics test and the other storms
          // measure our counters, limits, budget, breaker and pre-warming under load through
          // routes test/router already runs on Express 4 (launch, waiting, live, prepare,
          // launches): 11 files, 82 s of a run at load 12, nothing of Express's in them.
          // Likewise the exports at the client's pace and their caps: the pace is Node's
          // (`res.write` and `drain` on the socket, which Express 4 and 5 both leave as
          // Node's), the caps our counters, freed on the response's `close` (Node's); the
          // route, its Accept negotiation (Express's `req.accepts`) and its CSV are run on
          // Express 4 by launch-record.test.ts and launch-record-csv.test.ts. 90-160 s
          // of a loaded run in this project. And the 6,000-login flood, which measures the
          // login limiter: the client address read through `trust proxy` (Express's
          // `req.ip`) is lti-login-address.test.ts's, which runs here.
          exclude: [
            ...configDefaults.exclude, ...OWN_PROCESS, "test/router/metrics.test.ts",
            "test/router/export-backpressure.test.ts", "test/router/export-limits.test.ts", "test/router/lti-login-jam.test.ts",
          ],
          isolate: false,
        },
        resolve: { alias: [{ find: /^express$/, replacement: "express4" }] },
      },
    ],
  },
});
