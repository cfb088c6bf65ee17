/**
 * `npm run bench [-- --help] [--json] [--only storm,overhead,memory,organizations,record,lti,ltiRoster,liveView,exports,loginFlood,gradebookClaim,returnReplays] [--breakdown] [--fleet]
 *   [--students 600] [--launches 100000] [--rounds 2000] [--record-rounds 6000] [--lti-arrival-ms 60000] [--lti-preset canvas] [--lti-gradebook on|off]
 *   [--flood-logins 5000] [--replay-concurrency 8] [--replay-floor] [--replay-nice 19] [--organizations-rounds 5] [--cpu-neighbour] [--organizations-skip-idle]`
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
 * records (live-view.js). `exports`: heap and RSS growth over the idle process with 30
 * clients (one instructor each) that never read a 6 MB CSV export (exports.js). `loginFlood`: 5,000 anonymous maximum-size LTI logins, every one
 * answered; the router host's retained heap and RSS growth, and with Redis (EOA_BENCH_REDIS_URL)
 * Redis's growth in bytes and keys (login-flood.js); then 24 /64s at 300 logins/s for 20 s and
 * the share of learners from other addresses who get their login (login-jam.js). `organizations`: the noisy-neighbour
 * ratio (`--organizations-rounds N` runs, each with the load average; `--cpu-neighbour`
 * spins a core in a child meanwhile, target 3× instead of 2×) and the host's CPU per
 * launch (process.cpuUsage in its own process ÷ launches) beside http-proxy-middleware's
 * per request on the same run (organizations.js). `gradebookClaim`: one score outbox claim's
 * p50/p95 at 1,000 and 100,000 rows (half sent) on SQLite and PostgreSQL (gradebook-claim.js).
 * `returnReplays`: 10,000 replays of one LTI return mark, the scores queued and the LMS's
 * posts, another school's p95 before, during and after (return-replays.js).
 */
import { parseArgs } from "node:util";
import { runBreakdown } from "./breakdown.js";
import { runFleet } from "./fleet.js";
import { runFleetOrganizations } from "./fleet-organizations.js";
import { startEmulatorProcess } from "./lib/emulator.js";
import { table } from "./lib/stats.js";
import { targetRows } from "./lib/targets.js";
import { printUsage } from "./lib/usage.js";
import { runMemory } from "./memory.js";
import { runOrganizations } from "./organizations.js";
import { runOverhead } from "./overhead.js";
import { runLaunchRecord } from "./launch-record.js";
import { runLtiStorm } from "./lti.js";
import { runStorms } from "./storm.js";
import { runLiveView } from "./live-view.js";
import { runExports } from "./exports.js";
import { runLoginFlood } from "./login-flood.js";
import { runGradebookClaim } from "./gradebook-claim.js";
import { runReturnReplays } from "./return-replays.js";

const { values } = parseArgs({
  options: {
    help: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    students: { type: "string", default: "600" },
    launches: { type: "string", default: "100000" },
    rounds: { type: "string", default: "2000" },
    // The record's p99 is the 1 % tail: it needs more samples than the overhead's medians.
    "record-rounds": { type: "string", default: "6000" },
    // A comma-separated subset of the parts below.
    only: { type: "string", default: "storm,overhead,memory,organizations,record,lti,ltiRoster,liveView,exports,loginFlood,gradebookClaim,returnReplays" },
    // The LTI storm's arrival window (600 learners "within a minute") and the LMS preset it launches from.
    "lti-arrival-ms": { type: "string", default: "60000" },
    "lti-preset": { type: "string", default: "canvas" },
    "lti-gradebook": { type: "string", default: "on" },
    // The login flood's anonymous maximum-size logins (login-flood.js).
    "flood-logins": { type: "string", default: "5000" },
    // The return replays' requests in flight (return-replays.js).
    "replay-concurrency": { type: "string", default: "8" },
    // The return replays sent to a bare 429 on the router's event loop instead of the router (the machine's floor).
    "replay-floor": { type: "boolean", default: false },
    // The replay driver's niceness (0-19). 19: the learner's script gets only the cores the router and the
    // other school leave, as on the learner's own machine; 0: it competes for the router's cores (return-replays.js).
    "replay-nice": { type: "string", default: "19" },
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
if (values.help) {
  printUsage(import.meta.url);
  process.exit(0);
}
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const started = performance.now();
const only = new Set(values.only.split(",").map((s) => s.trim()));
if (values.breakdown) only.add("breakdown");
if (values.fleet) only.add("fleet");
const PARTS = ["storm", "overhead", "memory", "organizations", "record", "lti", "ltiRoster", "liveView", "exports", "loginFlood", "gradebookClaim", "returnReplays", "breakdown", "fleet"];
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
  if (only.has("gradebookClaim")) result.gradebookClaim = await runGradebookClaim({ log });
  if (only.has("returnReplays")) result.returnReplays = await runReturnReplays(emulator, { concurrency: Number(values["replay-concurrency"]), floor: values["replay-floor"], nice: Number(values["replay-nice"]), log });
  if (only.has("breakdown")) result.breakdown = await runBreakdown(emulator, { log });
  if (only.has("fleet")) {
    result.fleet = await runFleet(emulator, { students: Number(values.students), redisUrl, log });
    result.fleet.organizations = await runFleetOrganizations({ count: Number(values["fleet-organizations"]), redisUrl, log });
  }
} finally {
  await emulator.close();
}
result.durationMs = Math.round(performance.now() - started);

const rows = targetRows(result);
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
