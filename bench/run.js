/**
 * `npm run bench [-- --json] [--only storm,overhead,memory,organizations,record,lti,ltiRoster,liveView,exports,loginFlood] [--breakdown] [--fleet]
 *   [--students 600] [--launches 100000] [--rounds 2000] [--record-rounds 6000] [--lti-arrival-ms 60000] [--lti-preset canvas] [--lti-gradebook on|off]
 *   [--flood-logins 5000] [--organizations-rounds 5] [--cpu-neighbour] [--organizations-skip-idle]`
 *
 * Builds nothing itself (`npm run bench` runs the build first) and imports the package by
 * its name, as an integrator would. The emulator runs in a child process. Prints a table,
 * or with --json one JSON object on stdout (progress goes to stderr either way).
 * Targets are checked against baselines measured in the same run, and the exit code is 1
 * when any printed target is missed, so CI can run it. `--only` runs a subset (targets
 * of the parts that ran still count); `--breakdown` adds the stage-by-stage timing of a
 * router call (also `--only breakdown`), which has no targets. `--fleet` adds the fleet
 * storm (also `--only fleet`): 4 instance processes behind a balancer, Redis at
 * EOA_BENCH_REDIS_URL (default redis://127.0.0.1:6379); see fleet.js; then
 * `--fleet-organizations 200` organizations each touched once and left idle: no Redis key
 * of theirs may outlive the expiry (fleet-organizations.js). `record`: the
 * launch p99 with and without the launch record, in the same run (launch-record.js).
 * `lti`: the LTI storm, learners launching from the LMS emulator within a minute on a
 * pre-warmed exam, p99 per step and sign-in calls per student (lti.js). `ltiRoster`: the
 * same storm on a roster the instructor prepared from the LMS (*Prepare this exam for the
 * course*: the roster read through NRPS, 50 a page), failures, sign-in calls during the
 * storm, p99 per step (lti.js, `prepareVia: "nrps"`).
 * `liveView`: another school's launch p95 beside 100 live streams on an exam of 60 000
 * records (live-view.js). `exports`: RSS growth with 30 clients that never read a 6 MB
 * CSV export (exports.js). `loginFlood`: 5,000 anonymous maximum-size LTI logins, every one
 * kept; the router host's retained heap and RSS growth, and with Redis (EOA_BENCH_REDIS_URL)
 * Redis's growth in bytes and keys (login-flood.js). `organizations`: the noisy-neighbour
 * ratio (`--organizations-rounds N` runs, each with the load average; `--cpu-neighbour`
 * spins a core in a child meanwhile, target 3× instead of 2×) and the host's CPU per
 * launch (process.cpuUsage in its own process ÷ launches) beside http-proxy-middleware's
 * per request on the same run (organizations.js).
 */
import { parseArgs } from "node:util";
import { runBreakdown } from "./breakdown.js";
import { runFleet } from "./fleet.js";
import { runFleetOrganizations } from "./fleet-organizations.js";
import { startEmulatorProcess } from "./lib/emulator.js";
import { table } from "./lib/stats.js";
import { runMemory } from "./memory.js";
import { runOrganizations } from "./organizations.js";
import { runOverhead } from "./overhead.js";
import { runLaunchRecord } from "./launch-record.js";
import { runLtiStorm } from "./lti.js";
import { runStorms } from "./storm.js";
import { runLiveView } from "./live-view.js";
import { runExports } from "./exports.js";
import { runLoginFlood } from "./login-flood.js";

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    students: { type: "string", default: "600" },
    launches: { type: "string", default: "100000" },
    rounds: { type: "string", default: "2000" },
    // The record's p99 is the 1 % tail: it needs more samples than the overhead's medians.
    "record-rounds": { type: "string", default: "6000" },
    // A comma-separated subset of the parts below.
    only: { type: "string", default: "storm,overhead,memory,organizations,record,lti,ltiRoster,liveView,exports,loginFlood" },
    // The LTI storm's arrival window (600 learners "within a minute") and the LMS preset it launches from.
    "lti-arrival-ms": { type: "string", default: "60000" },
    "lti-preset": { type: "string", default: "canvas" },
    "lti-gradebook": { type: "string", default: "on" },
    // The login flood's anonymous maximum-size logins (login-flood.js).
    "flood-logins": { type: "string", default: "5000" },
    breakdown: { type: "boolean", default: false },
    fleet: { type: "boolean", default: false },
    // Where the noisy-neighbour part's router runs: "child" (its own process) or "process" (the bench's).
    "organizations-host": { type: "string", default: "child" },
    // Where the noisy-neighbour part's storm browsers run: "child" (their own process) or "process" (the bench's, which times the quiet school).
    "organizations-storm": { type: "string", default: "child" },
    // The noisy-neighbour runs of the organizations part (each reported with the load average), and a CPU-bound neighbour process beside them.
    "organizations-rounds": { type: "string", default: "1" },
    "cpu-neighbour": { type: "boolean", default: false },
    // Leaves out the organizations part's 1 000 idle organizations (only the noisy neighbour and the CPU per launch).
    "organizations-skip-idle": { type: "boolean", default: false },
    // Organizations the fleet part touches once each before its idle expiry (fleet-organizations.js).
    "fleet-organizations": { type: "string", default: "200" },
  },
});
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const started = performance.now();
const only = new Set(values.only.split(",").map((s) => s.trim()));
if (values.breakdown) only.add("breakdown");
if (values.fleet) only.add("fleet");
const PARTS = ["storm", "overhead", "memory", "organizations", "record", "lti", "ltiRoster", "liveView", "exports", "loginFlood", "breakdown", "fleet"];
const unknown = [...only].filter((s) => !PARTS.includes(s));
if (unknown.length > 0) {
  process.stderr.write(`--only: unknown part(s) ${unknown.join(", ")}; choose from ${PARTS.join(", ")}\n`);
  process.exit(2);
}

const redisUrl = process.env.EOA_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const emulator = await startEmulatorProcess();
const result = { node: process.version, durationMs: 0 };
try {
  // Memory first: its RSS baseline should not hold what the storms' 600 sockets left behind.
  if (only.has("memory")) result.memory = await runMemory(emulator, { launches: Number(values.launches), log });
  if (only.has("storm")) result.storm = await runStorms(emulator, { students: Number(values.students), log });
  if (only.has("overhead")) result.overhead = await runOverhead(emulator, { rounds: Number(values.rounds), log });
  if (only.has("organizations")) result.organizations = await runOrganizations({ students: Number(values.students), hostIn: values["organizations-host"], stormIn: values["organizations-storm"], rounds: Number(values["organizations-rounds"]), cpuNeighbour: values["cpu-neighbour"], idle: !values["organizations-skip-idle"], log });
  if (only.has("record")) result.launchRecord = await runLaunchRecord(emulator, { rounds: Number(values["record-rounds"]), log });
  if (only.has("lti")) result.lti = await runLtiStorm(emulator, { students: Number(values.students), arrivalMs: Number(values["lti-arrival-ms"]), preset: values["lti-preset"], gradebook: values["lti-gradebook"] !== "off", log });
  if (only.has("ltiRoster")) result.ltiRoster = await runLtiStorm(emulator, { students: Number(values.students), arrivalMs: Number(values["lti-arrival-ms"]), preset: values["lti-preset"], prepareVia: "nrps", log });
  if (only.has("liveView")) result.liveView = await runLiveView({ log });
  if (only.has("exports")) result.exports = await runExports(emulator, { log });
  if (only.has("loginFlood")) result.loginFlood = await runLoginFlood(emulator, { logins: Number(values["flood-logins"]), redisUrl, log });
  if (only.has("breakdown")) result.breakdown = await runBreakdown(emulator, { log });
  if (only.has("fleet")) {
    result.fleet = await runFleet(emulator, { students: Number(values.students), redisUrl, log });
    result.fleet.organizations = await runFleetOrganizations({ count: Number(values["fleet-organizations"]), redisUrl, log });
  }
} finally {
  await emulator.close();
}
result.durationMs = Math.round(performance.now() - started);

/** [metric, value, target, met] rows; a row with a target counts towards the exit code. */
const rows = [];
const { storm, overhead, memory, breakdown, fleet, organizations, launchRecord, lti, ltiRoster, liveView, exports, loginFlood } = result;
if (storm) {
  const d = storm.onDemand;
  const w = storm.preWarmed;
  rows.push(
    ["storm: students", storm.students],
    ["storm: platform rate (per min)", storm.ratePerMinute],
    ["on demand: last redirect (ms)", d.lastRedirectMs, `physical bound for these arrivals = ${d.physicalBoundMs}`],
    ["on demand: ratioToPhysical (single instance, time ÷ physical)", d.ratioToPhysical, "≤ 1.03 (issue 29)", d.ratioToPhysical <= 1.03],
    ["on demand: ratio to N ÷ rate (older, looser bound)", d.ratio, `N ÷ rate = ${d.boundMs}`],
    ["on demand: failed", d.failed, "0", d.failed === 0],
    ["on demand: saw waiting page", d.sawWaitingPage],
    ["on demand: platform 429s", d.platform429, "0", d.platform429 === 0],
    ["on demand: max calls in a window", d.maxInAnyWindow],
    ["pre-warmed: p50 (ms)", w.p50Ms],
    ["pre-warmed: p99 (ms)", w.p99Ms, "< 50", w.p99Ms < 50],
    ["pre-warmed: failed", w.failed, "0", w.failed === 0],
    ["pre-warmed: platform calls in storm", w.platformCallsDuringStorm, "0", w.platformCallsDuringStorm === 0],
  );
}
if (overhead) {
  const o = overhead;
  rows.push(
    ["overhead: launch direct median (ms)", o.directMedianMs],
    ["overhead: launch router added (ms)", o.routerVsDirect.medianAddedMs, "< http-proxy-middleware", o.routerVsDirect.medianAddedMs < o.httpProxyMiddleware.medianAddedMs],
    ["overhead: launch http-proxy-middleware added (ms)", o.httpProxyMiddleware.medianAddedMs],
    ["overhead: launch minimal forwarder added (ms)", o.minimalForwarder.medianAddedMs, "(floor, no target)"],
    ["overhead: GET course direct median (ms)", o.instructorGet.directMedianMs],
    ["overhead: GET course router added (ms)", o.instructorGet.routerAddedMs, "< http-proxy-middleware", o.instructorGet.routerAddedMs < o.instructorGet.proxyAddedMs],
    ["overhead: GET course http-proxy-middleware added (ms)", o.instructorGet.proxyAddedMs],
    ["overhead: GET course axios floor added (ms)", o.instructorGet.axiosFloorAddedMs, "(least any router with axios adds; no target)"],
    ["overhead: POST course direct median (ms)", o.instructorCreate.directMedianMs],
    ["overhead: POST course router added (ms)", o.instructorCreate.routerAddedMs, "< http-proxy-middleware", o.instructorCreate.routerAddedMs < o.instructorCreate.proxyAddedMs],
    ["overhead: POST course http-proxy-middleware added (ms)", o.instructorCreate.proxyAddedMs],
  );
}
if (launchRecord) {
  const r = launchRecord;
  rows.push(
    ["launch record: launches recorded", r.recorded, `= rounds + warm-up`, r.recorded === r.expected],
    ["launch record: p50 without / with (ms)", `${r.p50WithoutMs} / ${r.p50WithMs}`],
    ["launch record: p99 without (ms)", r.p99WithoutMs],
    ["launch record: p99 with (ms)", r.p99WithMs],
    ["launch record: p99 ratio", r.ratio, "≤ 1.05", r.ratio <= 1.05],
    ["launch record, no platform call: p50 without / with (ms)", `${r.noCall.p50WithoutMs} / ${r.noCall.p50WithMs}`],
    ["launch record, no platform call: p99 without / with (ms)", `${r.noCall.p99WithoutMs} / ${r.noCall.p99WithMs}`],
    ["launch record, no platform call: p99 ratio", r.noCall.ratio, "≤ 1.05", r.noCall.ratio <= 1.05],
  );
}
if (memory) {
  rows.push(
    ["memory: launches", memory.launches],
    ["memory: failed", memory.failed, "0", memory.failed === 0],
    ["memory: launches/s", memory.launchesPerSecond],
    ["memory: RSS growth (%)", memory.rssGrowthPct, "< 5", memory.rssGrowthPct < 5],
  );
}
if (organizations) {
  const { noisyNeighbourRounds: rounds, idle: i, cpuPerLaunch: c } = organizations;
  // Beside a CPU-bound neighbour process the target is 3× (issue 29), on an idle machine 2×.
  const times = rounds[0].cpuNeighbour ? 3 : 2;
  const with_ = rounds[0].cpuNeighbour ? ", with a CPU-bound neighbour" : "";
  rounds.forEach((n, k) => {
    const at = rounds.length > 1 ? ` (round ${k + 1}, load ${n.loadAverage.before} → ${n.loadAverage.after}${with_})` : ` (load ${n.loadAverage.before} → ${n.loadAverage.after}${with_})`;
    rows.push(
      [`organizations: quiet school p99 alone / beside a storm (ms)${at}`, `${n.quietBaselineP99Ms} / ${n.quietP99Ms}`],
      [`organizations: noisy-neighbour ratio${at}`, n.ratio, `≤ ${times}`, n.quietP99Ms <= times * n.quietBaselineP99Ms],
      [`organizations: quiet school failed${at}`, n.quietFailed, "0", n.quietFailed === 0],
    );
  });
  rows.push(["organizations: storm school redirected", rounds[0].stormRedirected]);
  if (c) {
    rows.push(
      ["organizations: host CPU per launch (ms)", c.routerMsPerLaunch, "≤ 0.4", c.routerMsPerLaunch <= 0.4],
      ["organizations: host CPU per launch, each round (ms)", c.routerMsPerLaunchByRound.join(", ")],
      ["organizations: host CPU per launch request, refreshes included (ms)", c.routerMsPerLaunchRequest],
      [`organizations: http-proxy-middleware CPU per request (ms, ${c.httpProxyMiddlewareRequests} requests)`, c.httpProxyMiddlewareMsPerRequest],
    );
  }
  if (i) {
    rows.push(
      ["organizations: heap per cached organization (KB)", i.heldPerOrganizationKb],
      ["organizations: heap per idle organization (KB)", i.heapPerOrganizationKb, "< 5", i.heapPerOrganizationKb < 5],
    );
  }
}
if (liveView) {
  const v = liveView;
  rows.push(
    [`live view: quiet school p95 alone (ms)`, v.quietBaselineP95Ms],
    [`live view: quiet school p95 beside ${v.streams} streams on ${v.records} records (ms)`, v.quietP95Ms, "< 2 × alone", v.quietP95Ms < 2 * v.quietBaselineP95Ms],
    ["live view: quiet school failed", v.quietFailed, "0", v.quietFailed === 0],
    ["live view: streams fed / snapshots per stream per s", `${v.streamsFed} / ${v.snapshotsPerStreamPerSecond}`],
  );
}
if (exports) {
  const e = exports;
  rows.push(
    [`exports: ${e.exportMb} MB CSV, one reading client (ms)`, e.readingClientMs],
    [`exports: RSS growth, ${e.clients} clients that never read (MB)`, e.rssGrowthMb, "< 60", e.rssGrowthMb < 60],
  );
}
if (loginFlood) {
  const { logins, inProcess: p, fleet: f } = loginFlood;
  rows.push(
    ["login flood: load average before / after", `${loginFlood.loadAverage.before} / ${loginFlood.loadAverage.after}`],
    [`login flood, in process: ${logins} maximum-size logins kept`, p.kept, `= ${logins}`, p.kept === logins],
    ["login flood, in process: retained heap growth after GC (MB)", p.heapGrowthMb, "< 40", p.heapGrowthMb < 40],
    ["login flood, in process: retained heap per login (bytes)", p.heapBytesPerLogin],
    ["login flood, in process: RSS growth (MB, information)", p.rssGrowthMb],
  );
  if (f.skipped) rows.push(["login flood, Redis: skipped (no Redis)", f.skipped]);
  else {
    rows.push(
      [`login flood, Redis: ${logins} maximum-size logins kept`, f.kept, `= ${logins}`, f.kept === logins],
      ["login flood, Redis: growth (MB, MEMORY USAGE of the prefix)", f.redisGrowthMb, "< 5", f.redisGrowthMb < 5],
      ["login flood, Redis: keys / bytes per login", `${f.redisKeys} / ${f.redisBytesPerLogin}`],
      ["login flood, Redis: host retained heap growth after GC (MB)", f.heapGrowthMb, "< 40", f.heapGrowthMb < 40],
      ["login flood, Redis: host RSS growth (MB, information)", f.rssGrowthMb],
    );
  }
}
if (fleet) {
  const d = fleet.onDemand;
  const w = fleet.preWarmed;
  rows.push(
    ["fleet: instances", fleet.instances],
    ["fleet on demand: ratio", d.ratio, "≤ 1.00 (issue 29)", d.ratio <= 1.0],
    ["fleet on demand: ratioToPhysical", d.ratioToPhysical, `physical bound for these arrivals = ${d.physicalBoundMs} ms`],
    ["fleet on demand: last sign-in call / last redirect (ms)", `${d.lastSignInCallMs} / ${d.lastRedirectMs}`],
    ["fleet on demand: failed", d.failed, "0", d.failed === 0],
    ["fleet on demand: platform 429s", d.platform429, "0", d.platform429 === 0],
    ["fleet on demand: sign-in calls", d.signInCalls, `= students (${d.students})`, d.signInCalls === d.students],
    ["fleet on demand: max calls in a window", d.maxInAnyWindow],
    ["fleet pre-warmed: p99 (ms)", w.p99Ms, "< 25 (issue 29)", w.p99Ms < 25],
    ["fleet pre-warmed: failed", w.failed, "0", w.failed === 0],
    ["fleet pre-warmed: platform calls in storm", w.platformCalls, "0", w.platformCalls === 0],
    ["fleet pre-warmed: duplicate tokens", w.duplicateTokens, "0", w.duplicateTokens === 0],
    ["fleet kill one: failed", fleet.killOne.failed, "0", fleet.killOne.failed === 0],
    ["fleet organizations: touched once each", fleet.organizations.count],
    ["fleet organizations: Redis keys before idling", fleet.organizations.keysBefore],
    ["fleet organizations: keys left after the idle expiry", fleet.organizations.keysLeftAfterExpiry, "0", fleet.organizations.keysLeftAfterExpiry === 0],
    ["fleet organizations: keys left without a lifetime", fleet.organizations.keysWithoutTtl, "0", fleet.organizations.keysWithoutTtl === 0],
    ["fleet organizations: of which pre-warm plans' / others'", `${fleet.organizations.planKeysLeft} / ${fleet.organizations.otherKeysLeft}`],
  );
}
if (lti) {
  rows.push(
    ["lti storm: learners (preset, arrival ms)", `${lti.students} (${lti.preset}, ${lti.arrivalMs})`],
    ["lti storm: load average before / after", `${lti.loadAverage.before} / ${lti.loadAverage.after}`],
    ["lti storm: login p50 / p99 (ms)", `${lti.login.p50Ms} / ${lti.login.p99Ms}`, "p99 < 50", lti.login.p99Ms < 50],
    ["lti storm: launch p50 / p99 (ms)", `${lti.launch.p50Ms} / ${lti.launch.p99Ms}`, "p99 < 50", lti.launch.p99Ms < 50],
    ["lti storm: open p50 / p99 (ms)", `${lti.open.p50Ms} / ${lti.open.p99Ms}`, "p99 < 50", lti.open.p99Ms < 50],
    ["lti storm: failed", lti.failed, "0", lti.failed === 0],
    ["lti storm: sign-in calls per student", lti.signInCallsPerStudent, "1", lti.signInCallsPerStudent === 1],
    ["lti storm: sign-in calls during the storm", lti.signInCallsInStorm, "0 (pre-warmed)", lti.signInCallsInStorm === 0],
    ...(lti.ags ? [
      // The warm-up learners (off the roster) reach the exam too: at least one Started per learner.
      ["lti storm: AGS learners Started in the LMS gradebook", `${lti.ags.started} (${lti.ags.scores} posts, ${lti.ags.lineItems} line item, ${lti.ags.tokensIssued} tokens)`, `≥ ${lti.students}`, lti.ags.started >= lti.students],
      ["lti storm: AGS all delivered, ms after the last launch", lti.ags.allStartedMsAfterStorm],
    ] : [["lti storm: gradebook", "off (--lti-gradebook off)"]]),
  );
}
if (ltiRoster) {
  const r = ltiRoster;
  rows.push(
    ["lti roster storm: learners (preset, arrival ms)", `${r.students} (${r.preset}, ${r.arrivalMs})`],
    ["lti roster storm: load average before / after", `${r.loadAverage.before} / ${r.loadAverage.after}`],
    ["lti roster storm: prepared through NRPS (pages, form post ms)", `${r.prepared} (${r.nrpsPages}, ${r.preparePostMs})`],
    ["lti roster storm: login p50 / p99 (ms)", `${r.login.p50Ms} / ${r.login.p99Ms}`, "p99 < 50", r.login.p99Ms < 50],
    ["lti roster storm: launch p50 / p99 (ms)", `${r.launch.p50Ms} / ${r.launch.p99Ms}`, "p99 < 50", r.launch.p99Ms < 50],
    ["lti roster storm: open p50 / p99 (ms)", `${r.open.p50Ms} / ${r.open.p99Ms}`, "p99 < 50", r.open.p99Ms < 50],
    ["lti roster storm: failed", r.failed, "0", r.failed === 0],
    ["lti roster storm: sign-in calls during the storm", r.signInCallsInStorm, "0 (prepared)", r.signInCallsInStorm === 0],
  );
}
if (breakdown) {
  for (const [stage, ms] of Object.entries(breakdown.httpStagesMs)) rows.push([`breakdown (ms): ${stage}`, ms]);
  for (const [stage, us] of Object.entries(breakdown.inProcessUs)) rows.push([`breakdown (µs): ${stage}`, us]);
}
rows.push(["bench duration (s)", Math.round(result.durationMs / 1000)]);

const missed = rows.filter((r) => r[3] === false).map((r) => r[0]);
result.targets = Object.fromEntries(rows.filter((r) => r[3] !== undefined).map((r) => [r[0], r[3]]));
result.missed = missed;
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else process.stdout.write(`${table(rows)}\n`);
if (missed.length > 0) {
  log(`missed ${missed.length} target(s): ${missed.join("; ")}`);
  process.exitCode = 1;
}
