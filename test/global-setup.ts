import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { build } from "../scripts/build.js";
import { staleDistReason } from "./support/dist-freshness.js";

/**
 * Runs once before the suite:
 * - makes this run's canary keys (test workers inherit them through the environment);
 * - builds dist/, because the package test, the example app and the browser test load
 *   the package the way an integrator does (by its name), never a stale build; unless
 *   dist/ is already fresh (every file the build writes newer than every source, build
 *   script and config: test/support/dist-freshness.ts), as it is in CI right after
 *   `npm run build`.
 */
export default async function setup(): Promise<void> {
  const random = () => randomBytes(18).toString("base64url");
  process.env.CANARY_TEST_KEY = `svc_test_${random()}`;
  process.env.CANARY_LIVE_KEY = `svc_live_${random()}`;
  process.env.CANARY_WRONG_KEY = `svc_test_${random()}`;
  // Runs once per vitest project, in one process: build once.
  if (process.env.EOA_DIST_BUILT) return;
  process.env.EOA_DIST_BUILT = "1";
  const root = join(import.meta.dirname, "..");
  if (staleDistReason(root) === undefined) return;
  // The build `npm run build` runs, written in place (no clean: other test runs may be
  // reading dist/). Type errors do not stop it; `npm run typecheck` is where they fail.
  const { tscProblems } = await build(root, { clean: false });
  if (tscProblems) console.warn(`global-setup: tsc reported problems (dist/ was built anyway):\n${tscProblems.slice(0, 2000)}`);
}
