/**
 * `npm run soak [-- --help] [--json] [--requests 10000] [--cases 10000] [--seed N]`
 *
 * Two phases against the built package, the router in a child process (a crash is
 * counted and the router restarted), the emulator in another:
 * - faults: requests through the router (instructor routes and launches) while the
 *   emulator injects a random mix of 500, hang, reset, malformed JSON, 429 and latency.
 *   Every answer must be a documented status (success, 502, 503, 504) within its
 *   deadline; the key must appear in no response and no log line; RSS must stay flat.
 * - fuzz: fast-check cases of invalid bodies, ids and headers on every instructor route
 *   (bench/soak/fuzz-cases.js): no answer ≥ 500, no platform call, every answer a
 *   problem+json (a 400 naming a field). Each failing class is listed with a small example.
 * - abuse: one student reloading a launch 200 times against a platform failing for them
 *   and against a full class, with the router's real defaults (bench/soak/abuse.js):
 *   ≤ 5 sign-in calls each, other students' launch p99 within 2× of their quiet p99.
 *   `--only abuse` runs this phase alone.
 * - redisRestart: 4 router instances in fleet mode on a private redis-server, 600 students
 *   launching in a storm at the emulator's rate limit, Redis restarted empty mid-storm,
 *   then again with Redis away for 5 s (`outage5s`) (bench/soak/redis-restart.js): 0 failed
 *   students, ≤ 1 platform 429, in each.
 *   `--only redisRestart` runs this phase alone.
 * `--only faults` runs the faults phase alone.
 * `--store sqlite|memory` (default sqlite, the default store: the records the run creates
 * are on disk, as in a user's process; memory: in the router's heap, which grows by their
 * size). `faults.kept` says how many records the store holds and their size (docs/stores.md).
 * Exits 1 when a target is missed. Progress goes to stderr.
 */
import { parseArgs } from "node:util";
import { startEmulatorProcess } from "../lib/emulator.js";
import { abuseMet, runAbuse } from "./abuse.js";
import { DEADLINE, runFaults } from "./faults.js";
import { runFuzz } from "./fuzz.js";
import { redisRestartMet, runRedisRestarts } from "./redis-restart.js";
import { superviseRouter } from "./supervised-router.js";
import { printUsage } from "../lib/usage.js";

const { values } = parseArgs({
  options: {
    help: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    requests: { type: "string", default: "10000" },
    cases: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "32" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    only: { type: "string" },
    store: { type: "string", default: "sqlite" },
  },
});
if (values.help) {
  printUsage(import.meta.url);
  process.exit(0);
}
const log = (text) => process.stderr.write(`[soak] ${text}\n`);
const print = (result) => process.stdout.write(`${values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2)}\n`);
if (values.only === "abuse") {
  const abuse = await runAbuse({ log });
  const targets = { abuse: abuseMet(abuse) };
  print({ abuse, targets });
  process.exit(targets.abuse ? 0 : 1);
}
if (values.only === "redisRestart") {
  const redisRestart = await runRedisRestarts({ log });
  const targets = { redisRestart: redisRestartMet(redisRestart) };
  print({ redisRestart, targets });
  process.exit(targets.redisRestart ? 0 : 1);
}
if (values.store !== "sqlite" && values.store !== "memory") {
  log(`--store takes sqlite or memory, not ${JSON.stringify(values.store)}`);
  process.exit(2);
}
if (values.only !== undefined && values.only !== "faults") {
  log(`--only takes faults, abuse or redisRestart, not ${JSON.stringify(values.only)}`);
  process.exit(2);
}
const seed = Number(values.seed);

const emulator = await startEmulatorProcess();
const control = async (method, path, body) => {
  const res = await fetch(`${emulator.url}/__emulator${path}`, {
    method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`emulator control ${method} ${path}: ${res.status}`);
  return res.json();
};
await emulator.setRateLimits({ dev: 1_000_000, prod: 1_000_000 });
const supervised = superviseRouter({ emulator, store: values.store, log });
const { counters } = supervised;

let result;
try {
  await supervised.current();
  log(`seed ${seed}; deadlines ${JSON.stringify(DEADLINE)}`);
  const faults = await runFaults({ supervised, control, seed, total: Number(values.requests), concurrency: Number(values.concurrency), log });
  const alone = values.only === "faults";
  const fuzz = alone ? undefined : await runFuzz({ supervised, control, seed, total: Number(values.cases), concurrency: 8 });
  const abuse = alone ? undefined : await runAbuse({ log });
  const redisRestart = alone ? undefined : await runRedisRestarts({ log });
  result = {
    seed,
    faults: {
      requests: faults.requests,
      crashes: counters.crashes,
      unhandledRejections: counters.unhandledRejections,
      overDeadline: faults.overDeadline,
      wrongStatus: faults.wrongStatus,
      keyLeaks: counters.keyLeaks,
      rssGrowthPct: faults.rssGrowthPct,
      heapGrowthPct: faults.heapGrowthPct,
      memoryMb: faults.memoryMb,
      store: values.store,
      kept: faults.kept,
      statuses: faults.statuses,
      deadlinesMs: DEADLINE,
      ...(faults.wrongExamples.length > 0 ? { wrongExamples: faults.wrongExamples } : {}),
      ...(faults.lateExamples.length > 0 ? { lateExamples: faults.lateExamples } : {}),
    },
    ...(fuzz ? {
      fuzz: {
        cases: fuzz.cases,
        serverErrors: fuzz.serverErrors,
        upstreamOnInvalid: fuzz.upstreamOnInvalid,
        notProblemNamingField: fuzz.notProblemNamingField,
        findings: fuzz.findings,
      },
      abuse,
      redisRestart,
    } : {}),
  };
} finally {
  await supervised.stop();
  await emulator.close();
}

const f = result.faults;
const z = result.fuzz;
const targets = {
  faults: f.requests >= 10_000 && f.crashes === 0 && f.unhandledRejections === 0 && f.overDeadline === 0 && f.wrongStatus === 0 && f.keyLeaks === 0 && f.rssGrowthPct < 10,
  ...(z ? {
    fuzz: z.cases >= 10_000 && z.serverErrors === 0 && z.upstreamOnInvalid === 0 && z.notProblemNamingField === 0,
    abuse: abuseMet(result.abuse),
    redisRestart: redisRestartMet(result.redisRestart),
  } : {}),
};
result.targets = targets;
if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
else process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(Object.values(targets).every(Boolean) ? 0 : 1);
