/**
 * What the launch record costs a launch: two hosts in the same run, identical but for
 * `launchRecord` (off in one, the default in the other), each on its own SQLite file (the
 * default store, whose writes are synchronous and so run on the host's event loop: the
 * honest case). Each host runs in its own process (lib/host-process.js), as a server
 * does: with the hosts inside the benchmark's process, the record's batch write, made
 * after the launch's 303 has been written to the socket, delayed the benchmark's own
 * reading of that 303 and was counted as the launch's time (an artefact no browser sees). Launches alternate between the two in an order shuffled every
 * round, one at a time, after a warm-up; no token is prepared, so every launch is an
 * on-demand sign-in call (the launch limit is lifted, as in overhead.js). Reports
 * each host's p50 and p99 and the ratio of the p99s (target: within 5 %).
 *
 * The same pair again with no `examHost` (`noCall`): the platform's own host signs the
 * student in, so a launch makes no platform call and its time is the router's alone,
 * without the emulator round trip whose tail on a shared machine can hide a small cost.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import http from "node:http";
import { get } from "./lib/browser.js";
import { cookieOf } from "./lib/host.js";
import { startHostProcess } from "./lib/host-process.js";
import { percentile, round, shuffle } from "./lib/stats.js";

export async function runLaunchRecord(emulator, { rounds = 2_000, warmup = 300, log }) {
  await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
  await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  const dir = mkdtempSync(join(tmpdir(), "eoa-bench-record-"));
  const common = { client: { rateLimitPerMinute: 1_000_000_000 }, router: { launchLimit: { burst: 1_000_000_000, refillMs: 1 } } };
  const host = (name, router) => startHostProcess(emulator, { ...common, router: { ...common.router, sqliteFile: join(dir, `${name}.sqlite`), ...router } });
  const hosts = {
    without: await host("without", { launchRecord: false }),
    with: await host("with", {}),
    noCallWithout: await host("noCallWithout", { launchRecord: false, noExamHost: true }),
    noCallWith: await host("noCallWith", { noExamHost: true }),
  };
  const names = Object.keys(hosts);
  try {
    const exams = Object.fromEntries(await Promise.all(names.map(async (name) => [name, (await hosts[name].seedExam(name)).examId])));
    const agents = Object.fromEntries(names.map((name) => [name, new http.Agent({ keepAlive: true, maxSockets: 1 })]));
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    log(`launch record: ${rounds} rounds of a launch with and without the record, with and without a platform call, shuffled (after ${warmup} warm-up)`);
    try {
      for (let i = 0; i < warmup + rounds; i++) {
        for (const name of shuffle(names)) {
          const started = performance.now();
          // Twenty students in turn (a class has a capacity): every launch is an on-demand call.
          const res = await get(agents[name], `${hosts[name].url}/oral/launch/${exams[name]}`, cookieOf(i % 20));
          const ms = performance.now() - started;
          if (res.status !== 303) throw new Error(`launch record ${name}: status ${res.status}`);
          if (i >= warmup) samples[name].push(ms);
        }
      }
    } finally {
      for (const a of Object.values(agents)) a.destroy();
    }
    // Every launch of the recording host was recorded (read back after its last flush).
    const recorded = await countRecorded(hosts.with, exams.with);
    const pair = (without, withRecord) => ({
      p50WithoutMs: round(percentile(samples[without], 50)),
      p50WithMs: round(percentile(samples[withRecord], 50)),
      p99WithoutMs: round(percentile(samples[without], 99)),
      p99WithMs: round(percentile(samples[withRecord], 99)),
      ratio: round(percentile(samples[withRecord], 99) / percentile(samples[without], 99)),
    });
    return { rounds, recorded, expected: warmup + rounds, ...pair("without", "with"), noCall: pair("noCallWithout", "noCallWith") };
  } finally {
    for (const h of Object.values(hosts)) await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function countRecorded(host, examId) {
  const res = await fetch(`${host.url}/oral/oral-assessments/${examId}/launches`, { headers: { cookie: cookieOf("ins"), accept: "text/csv" } });
  if (res.status !== 200) throw new Error(`launch record list: ${res.status}`);
  return (await res.text()).trimEnd().split("\r\n").length - 1;
}
