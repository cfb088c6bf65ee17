/**
 * The live view beside another school (issue 29, part 2): one router hosting two schools
 * on a SQLite store whose "loud" exam holds 60 000 launch records (6 000 students, 10
 * each). The quiet school's students launch alone (the baseline: half before, half
 * after), and while 100 live streams follow the loud exam (its instructor's dashboards). Target: the quiet school's
 * launch p95 beside the streams within 2× its p95 alone, in the same run. Each stream's
 * snapshots are counted, so a fan-out that fed nobody would show.
 *
 * The host and the quiet school's browsers run in this process; the streams' readers in a
 * child process (bench/lib/live-readers.js), as dashboards run in browsers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteStore } from "express-oral-assessments";
import { createBrowserPool, launch } from "./lib/browser.js";
import { startEmulatorProcess } from "./lib/emulator.js";
import { cookieOf, startHost } from "./lib/host.js";
import { startLiveReaders } from "./lib/live-readers.js";
import { percentile, round, sleep } from "./lib/stats.js";

const SCHOOLS = [{ id: "loud", name: "Loud University" }, { id: "quiet", name: "Quiet College" }];

export async function runLiveView({ streams = 100, records = 60_000, quiet = 400, concurrency = 4, log }) {
  const emulator = await startEmulatorProcess({ organizations: SCHOOLS });
  const dir = mkdtempSync(join(tmpdir(), "eoa-live-"));
  const store = sqliteStore({ filename: join(dir, "live.sqlite") });
  const byId = (id) => {
    const org = emulator.organizations.find((o) => o.id === id);
    return org && { apiKey: org.testKey, examHost: org.examHost };
  };
  await emulator.setRateLimits({ dev: 1_000_000, windowMs: 60_000 });
  const host = await startHost(emulator, {
    organizationOf: byId,
    client: { rateLimitPerMinute: 1_000_000 },
    router: { store, live: { maxStreamsPerUser: streams, maxStreamsPerOrganization: streams } },
  });
  const agent = createBrowserPool();
  try {
    const loud = await host.seedExam("Loud", "loud");
    const quietExam = await host.seedExam("Quiet", "quiet");
    log(`liveView: ${records} launch records on the loud exam`);
    const start = Date.now() - records * 100;
    for (let i = 0; i < records; i += 1_000) {
      await store.addLaunches("loud", Array.from({ length: Math.min(1_000, records - i) }, (_, j) => {
        const n = i + j;
        return {
          at: new Date(start + n * 100).toISOString(), kind: "oral", examId: loud.examId, outcome: ["redirected", "waiting", "platform_busy"][n % 3],
          status: 303, servedBy: "on_demand", via: "link", student: { orgInternalId: `s${n % 6_000}`, email: `s${n % 6_000}@bench.example` },
        };
      }));
    }
    const wave = async (prefix, count) => {
      let next = 0;
      const walks = [];
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const i = next++;
          walks.push(await launch(agent, host.url, `/oral/launch/${quietExam.examId}`, cookieOf(`${prefix}${i}`, "quiet")).catch(() => ({ status: 0, ms: NaN })));
        }
      }));
      return walks;
    };
    // Alone before and after the streams: the baseline spans the same stretch of time as
    // the run beside them (the machine's load drifts).
    log(`liveView: ${quiet / 2} quiet launches alone`);
    const before = await wave("qa", quiet / 2);
    log(`liveView: ${streams} streams on the loud exam, then ${quiet} quiet launches beside them`);
    const readers = await startLiveReaders({ url: `${host.url}/oral/oral-assessments/${loud.examId}/live`, cookie: cookieOf("ins", "loud"), count: streams });
    const openedAt = Date.now();
    await sleep(2_500); // every stream has had its first snapshot
    const beside = await wave("qb", quiet);
    const seconds = (Date.now() - openedAt) / 1000;
    const snapshots = await readers.stop();
    log(`liveView: ${quiet / 2} quiet launches alone again`);
    const after = await wave("qc", quiet / 2);
    const alone = [...before, ...after];
    const times = (walks) => walks.filter((w) => w.status === 303).map((w) => w.ms);
    const baseline = percentile(times(alone), 95);
    const during = percentile(times(beside), 95);
    return {
      records, streams, quietLaunches: quiet,
      quietBaselineP95Ms: round(baseline, 1),
      quietP95Ms: round(during, 1),
      quietBaselineP50Ms: round(percentile(times(alone), 50), 1),
      quietP50Ms: round(percentile(times(beside), 50), 1),
      ratio: round(during / baseline, 2),
      quietFailed: [...alone, ...beside].filter((w) => w.status !== 303).length,
      // Snapshots each stream got from its opening on (one at once, then one per 2 s).
      snapshotsPerStreamPerSecond: round(snapshots.reduce((n, s) => n + s, 0) / streams / seconds, 2),
      streamedSeconds: round(seconds, 1),
      streamsFed: snapshots.filter((n) => n > 0).length,
    };
  } finally {
    agent.destroy();
    await host.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
