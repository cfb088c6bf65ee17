/**
 * `npm run soak [-- --json] [--requests 10000] [--cases 10000] [--seed N]`
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
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { startEmulatorProcess } from "../lib/emulator.js";
import { abuseMet, runAbuse } from "./abuse.js";
import { redisRestartMet, runRedisRestarts } from "./redis-restart.js";
import { invalidRequest, malformedPathRequest, wrongAnswerFor } from "./fuzz-cases.js";
import { rawRequest } from "./http.js";
import { launchRoster, STUDENTS } from "./roster.js";
import { CLIENT, ROUTER } from "./router-process.js";

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    requests: { type: "string", default: "10000" },
    cases: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "32" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    only: { type: "string" },
    store: { type: "string", default: "sqlite" },
  },
});
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
const CHILD = fileURLToPath(new URL("./router-process.js", import.meta.url));

/** An instructor call: at most two attempts of `timeoutMs` plus backoff, bounded by the client's deadline; slack for a busy 2-core machine. */
const SLACK_MS = 1_500;
const DEADLINE = { instructor: CLIENT.deadlineMs + SLACK_MS, launch: ROUTER.launchWaitMs + CLIENT.deadlineMs + SLACK_MS };
const OK = { GET: [200], POST: [201], PUT: [200], DELETE: [204], launch: [303, 202] }; // 202: the waiting page
const UPSTREAM_FAILURE = [502, 503, 504];

const emulator = await startEmulatorProcess();
const control = async (method, path, body) => {
  const res = await fetch(`${emulator.url}/__emulator${path}`, {
    method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`emulator control ${method} ${path}: ${res.status}`);
  return res.json();
};
await emulator.setRateLimits({ dev: 1_000_000, prod: 1_000_000 });

// ---- the router child -------------------------------------------------------------------
const counters = { crashes: 0, unhandledRejections: 0, keyLeaks: 0 };
let router;
let stopping = false;
const countKey = (text) => {
  if (text.includes(emulator.testKey)) counters.keyLeaks += text.split(emulator.testKey).length - 1;
};

function startRouter() {
  const child = fork(CHILD, ["child"], {
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: { ...process.env, EMULATOR_URL: emulator.url, EMULATOR_KEY: emulator.testKey, SOAK_STORE: values.store },
  });
  // Scan output in chunks joined per line; a key split across chunks is still found.
  for (const stream of [child.stdout, child.stderr]) {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const l of lines) countKey(l);
    });
    stream.on("end", () => countKey(rest));
  }
  const pendingRss = [];
  child.on("message", (m) => {
    if (m?.type === "unhandledRejection") counters.unhandledRejections += 1;
    if (m?.type === "rss") pendingRss.shift()?.({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, kept: m.kept });
  });
  return new Promise((resolve, reject) => {
    child.on("message", (m) => {
      if (m?.type === "ready") resolve({ child, url: m.url, ids: m.ids, rss: () => new Promise((r) => { pendingRss.push(r); child.send({ type: "rss" }); }) });
    });
    child.once("exit", (code) => {
      if (!stopping) {
        counters.crashes += 1;
        log(`router process exited (${code}); restarting`);
        router = startRouter();
      }
      reject(new Error(`router exited (${code}) before it was ready`));
    });
  });
}
router = startRouter();
const current = () => router;

// ---- faults ------------------------------------------------------------------------------
const FAULTS = [
  { type: "status", status: 500 },
  { type: "hang" },
  { type: "reset" },
  { type: "malformed" },
  { type: "status", status: 429, retryAfter: 0 },
  { type: "status", status: 503 },
];
/** mulberry32: a seeded generator, so a run can be replayed with --seed. */
let state = seed >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (n) => Math.floor(random() * n);

function operation(r, i) {
  const ins = { cookie: "bench_user=ins" };
  const json = { ...ins, "content-type": "application/json" };
  const { courseId, classId, examId } = r.ids;
  const ops = [
    () => ({ kind: "GET", method: "GET", path: "/courses", headers: ins }),
    () => ({ kind: "GET", method: "GET", path: `/courses/${courseId}`, headers: ins }),
    () => ({ kind: "PUT", method: "PUT", path: `/courses/${courseId}`, headers: json, body: JSON.stringify({ name: `Soak ${i}` }) }),
    () => ({ kind: "POST", method: "POST", path: "/courses", headers: json, body: JSON.stringify({ name: `Course ${i}` }) }),
    () => ({ kind: "POST", method: "POST", path: `/courses/${courseId}/classes`, headers: json, body: JSON.stringify({ name: `Class ${i}`, startDate: "2026-09-01", endDate: "2026-12-01" }) }),
    () => ({ kind: "POST", method: "POST", path: "/oral-assessments", headers: json, body: JSON.stringify({ name: `Exam ${i}`, classId, questions: [{ text: "Why?" }] }) }),
    () => ({ kind: "GET", method: "GET", path: `/courses/${courseId}/classes`, headers: ins }),
    () => ({ kind: "GET", method: "GET", path: `/classes/${classId}/oral-assessments`, headers: ins }),
    () => ({ kind: "launch", method: "GET", path: `/launch/${examId}`, headers: { cookie: `bench_user=s${pick(STUDENTS)}` } }),
    () => ({ kind: "launch", method: "GET", path: `/launch/${examId}`, headers: { cookie: `bench_user=s${pick(STUDENTS)}` } }),
  ];
  return ops[pick(ops.length)]();
}

async function runFaults(total, concurrency) {
  const stats = { requests: 0, overDeadline: 0, wrongStatus: 0, statuses: {}, wrongExamples: [], lateExamples: [] };
  let next = 0;
  let baseRss;
  const warmup = Math.min(1_000, Math.floor(total / 10));
  await launchRoster(await current(), concurrency);
  log(`faults: the roster of ${STUDENTS} launched once`);
  const worker = async () => {
    while (next < total) {
      const i = next++;
      if (i === warmup) baseRss = await (await current()).rss();
      if (i % 250 === 0) await control("POST", "/latency", { fixedMs: pick(30), jitterMs: pick(80) });
      if (pick(10) < 3) await control("POST", "/faults", { ...FAULTS[pick(FAULTS.length)], count: 1 });
      const r = await current();
      const op = operation(r, i);
      const started = performance.now();
      let res;
      try {
        res = await rawRequest(r.url, op, DEADLINE[op.kind === "launch" ? "launch" : "instructor"] + 10_000);
      } catch (error) {
        res = { status: 0, headers: {}, text: String(error.message) };
      }
      const ms = performance.now() - started;
      stats.requests += 1;
      stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
      countKey(res.text);
      countKey(JSON.stringify(res.headers));
      if (ms > DEADLINE[op.kind === "launch" ? "launch" : "instructor"]) {
        stats.overDeadline += 1;
        if (stats.lateExamples.length < 5) stats.lateExamples.push({ op: `${op.method} ${op.path}`, status: res.status, ms: Math.round(ms) });
      }
      const allowed = [...OK[op.kind], ...UPSTREAM_FAILURE];
      if (!allowed.includes(res.status)) {
        stats.wrongStatus += 1;
        if (stats.wrongExamples.length < 5) stats.wrongExamples.push({ op: `${op.method} ${op.path}`, status: res.status, body: res.text.slice(0, 200) });
      }
      if (i % 1_000 === 0) log(`faults: ${i}/${total}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await control("DELETE", "/faults");
  const endRss = await (await current()).rss();
  const growth = (field) => (baseRss ? Math.round(((endRss[field] - baseRss[field]) / baseRss[field]) * 1000) / 10 : 0);
  stats.rssGrowthPct = growth("rss");
  // The JS heap after a full GC, beside RSS: RSS also holds freed pages the allocator keeps.
  stats.heapGrowthPct = growth("heapUsed");
  // What the store keeps at the end: with --store memory, that much of the heap is the records the run created.
  stats.kept = endRss.kept;
  // Base and end, MB: RSS, the heap in use and committed (V8 keeps pages after a peak), memory outside the heap (Buffers, SQLite's is not counted).
  const mb = (field) => [baseRss[field], endRss[field]].map((b) => Math.round(b / 1e5) / 10);
  stats.memoryMb = baseRss ? { rss: mb("rss"), heapUsed: mb("heapUsed"), heapTotal: mb("heapTotal"), external: mb("external") } : undefined;
  return stats;
}

// ---- fuzz --------------------------------------------------------------------------------
async function runFuzz(total, concurrency) {
  await control("DELETE", "/faults");
  const r = await current();
  const since = Date.now();
  // 95 % invalid ids, bodies and headers; 5 % malformed percent-encoding (a known router finding).
  const cases = fc.sample(fc.oneof({ weight: 19, arbitrary: invalidRequest(r.ids) }, { weight: 1, arbitrary: malformedPathRequest() }), { numRuns: total, seed });
  const stats = { cases: 0, serverErrors: 0, upstreamOnInvalid: 0, notProblemNamingField: 0, findings: {} };
  let next = 0;
  const cookie = "bench_user=ins";
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++];
      let res;
      try {
        res = await rawRequest(r.url, { ...c, headers: { ...c.headers, cookie } }, 10_000);
      } catch (error) {
        res = { status: 0, headers: {}, text: String(error.message) };
      }
      stats.cases += 1;
      countKey(res.text);
      const wrong = res.status === 0 ? "no answer" : wrongAnswerFor(c.path, res.status, res.headers["content-type"], res.text);
      if (res.status >= 500 || res.status === 0) stats.serverErrors += 1;
      else if (wrong) stats.notProblemNamingField += 1;
      if (wrong) {
        // One class per route shape and reason; keep the shortest example.
        const route = `${c.method} ${c.path.replace(/^\/(launch|courses|classes|oral-assessments)\/[^/]+/, "/$1/:id")}`;
        const key = `${route} → ${wrong}`;
        const example = `${c.method} ${c.path}${c.body === undefined ? "" : ` ${c.body}`}`.slice(0, 300);
        const seen = stats.findings[key];
        stats.findings[key] = { count: (seen?.count ?? 0) + 1, example: seen && seen.example.length <= example.length ? seen.example : example };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const log = await control("GET", "/requests");
  stats.upstreamOnInvalid = log.filter((entry) => entry.at >= since).length;
  return stats;
}

let result;
try {
  await router;
  log(`seed ${seed}; deadlines ${JSON.stringify(DEADLINE)}`);
  const faults = await runFaults(Number(values.requests), Number(values.concurrency));
  const alone = values.only === "faults";
  const fuzz = alone ? undefined : await runFuzz(Number(values.cases), 8);
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
  stopping = true;
  const r = await router.catch(() => undefined);
  if (r) await new Promise((resolve) => { r.child.once("exit", resolve); r.child.disconnect(); });
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
