import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_CONFIGS, staleDistReason } from "./support/dist-freshness.js";

/**
 * Runs once before the suite:
 * - makes this run's canary keys (test workers inherit them through the environment);
 * - builds dist/, because the package test, the example app and the browser test load
 *   the package the way an integrator does (by its name), never a stale build; unless
 *   dist/ is already fresh (every emitted file newer than its source and the tsconfigs),
 *   as it is in CI right after `npm run build`.
 */
export default function setup(): void {
  const random = () => randomBytes(18).toString("base64url");
  process.env.CANARY_TEST_KEY = `svc_test_${random()}`;
  process.env.CANARY_LIVE_KEY = `svc_live_${random()}`;
  process.env.CANARY_WRONG_KEY = `svc_test_${random()}`;
  // Emit in place (no clean: other test runs may be reading dist/). Type errors do not
  // stop the emit; `npm run typecheck` is where they fail the build.
  // Runs once per vitest project, in one process: build once.
  if (process.env.EOA_DIST_BUILT) return;
  process.env.EOA_DIST_BUILT = "1";
  if (staleDistReason(join(import.meta.dirname, "..")) === undefined) return;
  // Both builds, as `npm run build` makes them: ESM in dist/, CommonJS in dist/cjs.
  for (const project of BUILD_CONFIGS) {
    try {
      execFileSync("npx", ["tsc", "-p", project], { stdio: "pipe" });
    } catch (error) {
      const out = String((error as { stdout?: Buffer }).stdout ?? "");
      console.warn(`global-setup: tsc -p ${project} reported problems (dist/ was emitted anyway):\n${out.slice(0, 2000)}`);
    }
  }
  writeFileSync("dist/cjs/package.json", '{"type":"commonjs"}\n');
}
