/**
 * The order the suite's files start in (vitest.config.ts's `sequence.sequencer`): the
 * slowest first, so that the run ends on sub-second files on every worker instead of one
 * worker finishing a 30-second file alone.
 *
 * Vitest's own order runs the projects one after the other by name (express4, express5,
 * express5-own-process) and, within one, the previous run's slowest first when its cache
 * has every file, else the largest file first; a clean CI clone has no cache. On an idle
 * 2-core machine on 2026-11-26 that put the own-process files last: the 30.5 s login flood
 * started at 382 s and ran alone for its last 17 s, the whole suite 413 s.
 *
 * The order here, by the durations below:
 * 1. the files that mostly use the CPU (CPU_BOUND), so that they start together, beside
 *    each other rather than beside the fleet tests that count 429s and waiting pages in
 *    windows of a few seconds (a run that started the pack test's tsc beside the Redis outage
 *    storm met 2 platform 429s where it allows 1);
 * 2. the isolated files (express5-own-process), slowest first: each takes a fresh worker
 *    wherever it runs, so at the start they cost nothing more, and the login flood is done
 *    before the end;
 * 3. the shared-module projects one after the other, the one with the slowest file first,
 *    and within each its listed files slowest first, then the rest in vitest's order. One
 *    project at a time because a worker keeps its modules only while the next file is from
 *    the same project: each switch costs a fresh worker importing everything again.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds each file took in an idle clean-clone CI run of 2026-11-26 (307.6 s in all), the
 * larger figure where two projects run it; files of 5 s or more. A file missing here only
 * starts later: it still runs.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  "test/fleet/redis-outage.test.ts": 34.4,
  "test/fleet/restart-races.test.ts": 30.5,
  "test/fleet/redis-restart.test.ts": 20.3,
  "test/fleet/contracts.test.ts": 16.8,
  "test/fleet/race.test.ts": 16.7,
  "test/router/lti-login-flood.test.ts": 15.0,
  "test/storm/live.test.ts": 12.8,
  "test/platform/rate-budget.test.ts": 12.5,
  "test/fleet/real-window.test.ts": 12.2,
  "test/package/pack.test.ts": 11.9,
  "test/fleet/redis-down.test.ts": 11.7,
  "test/platform/retries.test.ts": 10.4,
  "test/router/failures.test.ts": 10.1,
  "test/storm/waiting.test.ts": 10.0,
  "test/lti/prepare-course.test.ts": 9.2,
  "test/fleet-router/fleet-router.test.ts": 8.8,
  "test/fleet-router/fleet-plan.test.ts": 8.7,
  "test/browser/prepare-course.test.ts": 8.3,
  "test/openapi-answers.test.ts": 8.3,
  "test/router/metrics.test.ts": 8.1,
  "test/router/pages.test.ts": 8.0,
  "test/browser/dashboard-to-exam.test.ts": 7.2,
  "test/fleet/outage-waiting-pages.test.ts": 7.2,
  "test/storm/breaker.test.ts": 6.5,
  "test/storm/live-fanout.test.ts": 6.4,
  "test/example-app/lms-walk.test.ts": 6.2,
  "test/platform/clock-skew.test.ts": 6.0,
  "test/storm/budget.test.ts": 5.9,
  "test/fleet/idle-expiry.test.ts": 5.8,
  "test/storm/paths.test.ts": 5.7,
  "test/emulator/rate-limit.test.ts": 5.4,
  "test/router/organization-prepare.test.ts": 5.2,
  // Added on 2026-11-29, timed alone (14.4 s): one TypeScript program over src/, one over dist/.
  "test/package/build-output.test.ts": 14.4,
  // Added on 2026-11-29 (issue 43), timed alone on a loaded machine: 5 roster reads of 120 MB; a 6,000-login flood.
  "test/lti/prepare-heap.test.ts": 18.4,
  "test/router/lti-login-jam.test.ts": 12.3,
  // Added on 2026-11-29 (issue 46) from a full run at load ~8 (so larger than the idle
  // figures above): files of 5 s or more that were missing, and started late (the
  // PostgreSQL store's 33 s at 462 s; the backpressure file ran alone for the run's last 75 s).
  "test/store/postgres.test.ts": 32.7,
  "test/router/export-limits.test.ts": 20.1,
  "test/router/export-backpressure.test.ts": 18.0,
  "test/readme.test.ts": 18.5,
  "test/store/lazy-drivers.test.ts": 16.1,
  "test/emulator/cli.test.ts": 13.0,
  "test/lti/gradebook-return.test.ts": 11.4,
  "test/example-app/server-start.test.ts": 11.1,
  "test/public-api.test.ts": 10.8,
  "test/store/sqlite.test.ts": 10.3,
  "test/router/openapi-spellings.test.ts": 9.9,
  "test/lti/gradebook.test.ts": 9.8,
  "test/router/idempotency.test.ts": 9.6,
  "test/store/differential.test.ts": 8.3,
  "test/fleet/remaining-probe.test.ts": 6.7,
  "test/storm/launch-limit.test.ts": 6.5,
  "test/router/lti-pinned-checks.test.ts": 6.0,
  "test/lti/pinned-gradebook.test.ts": 5.6,
  "test/platform/record-id.test.ts": 5.4,
  "test/router/lti-key-rotation.test.ts": 5.3,
  "test/router/lti-dynamic-registration.test.ts": 5.3,
  "test/router/lti-dr-hardening.test.ts": 5.0,
};

/** tsc and npm runs; TypeScript programs read; 4 000 maximum-size logins and their heap measured. */
export const CPU_BOUND: ReadonlySet<string> = new Set(["test/package/pack.test.ts", "test/package/build-output.test.ts", "test/router/lti-login-flood.test.ts"]);

/** The order described above, given vitest's order (`files`, already sorted) and the root. */
export function slowFirst(files: readonly TestSpecification[], root: string): TestSpecification[] {
  const path = (spec: TestSpecification) => relative(root, spec.moduleId).split("\\").join("/");
  const seconds = (spec: TestSpecification) => SLOW_FILES[path(spec)] ?? 0;
  const cpuBound = (spec: TestSpecification) => CPU_BOUND.has(path(spec));
  const slowestOfProject = new Map<string, number>();
  for (const spec of files) {
    const name = spec.project.name;
    slowestOfProject.set(name, Math.max(slowestOfProject.get(name) ?? 0, seconds(spec)));
  }
  const isolated = (spec: TestSpecification) => spec.project.config.isolate !== false;
  const position = new Map(files.map((spec, i) => [spec, i]));
  return [...files].sort((a, b) =>
    Number(cpuBound(b)) - Number(cpuBound(a)) ||
    Number(isolated(b)) - Number(isolated(a)) ||
    slowestOfProject.get(b.project.name)! - slowestOfProject.get(a.project.name)! ||
    // Two projects with the same slowest file: keep each together, in vitest's order.
    (a.project.name === b.project.name ? 0 : position.get(a)! - position.get(b)!) ||
    seconds(b) - seconds(a) ||
    position.get(a)! - position.get(b)!);
}

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return slowFirst(await super.sort(files), this.ctx.config.root);
  }
}
