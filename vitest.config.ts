import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects: the whole suite on Express 5, and the suites that mount the router again with `express`
 * resolved to Express 4 (the `express4` dev dependency), in our source and tests alike,
 * so both majors are proven in every run.
 */
export default defineConfig({
  test: {
    // Every test talks HTTP to real servers on 127.0.0.1; give slow CI machines room.
    testTimeout: 30_000,
    // Two files at a time: most tests wait on windows, leases and latency, not on the CPU,
    // and one worker (vitest's default on 2 cores) ran the suite past 6 minutes.
    maxWorkers: 2,
    hookTimeout: 60_000,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/key-canary.setup.ts"],
    // In CI also write a JSON report: .ci/run prints the plain "N passed, N failed" line from it.
    reporters: process.env.CI ? ["default", ["json", { outputFile: "test-artifacts/vitest.json" }]] : ["default"],
    projects: [
      {
        extends: true,
        test: { name: "express5", include: ["test/**/*.test.ts"] },
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
          exclude: [...configDefaults.exclude, "test/router/openapi-spellings.test.ts", "test/router/lti-login-flood.test.ts", "test/router/metrics.test.ts"],
        },
        resolve: { alias: [{ find: /^express$/, replacement: "express4" }] },
      },
    ],
  },
});
