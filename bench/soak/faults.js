/**
 * The soak's faults phase: requests through the router (instructor routes and launches)
 * while the emulator injects a random mix of 500, hang, reset, malformed JSON, 429 and
 * latency. Every answer must be a documented status within its deadline; RSS must stay flat.
 */
import { rawRequest } from "./http.js";
import { launchRoster, STUDENTS } from "./roster.js";
import { CLIENT, ROUTER } from "./router-process.js";

/** An instructor call: at most two attempts of `timeoutMs` plus backoff, bounded by the client's deadline; slack for a busy 2-core machine. */
const SLACK_MS = 1_500;
export const DEADLINE = { instructor: CLIENT.deadlineMs + SLACK_MS, launch: ROUTER.launchWaitMs + CLIENT.deadlineMs + SLACK_MS };
const OK = { GET: [200], POST: [201], PUT: [200], DELETE: [204], launch: [303, 202] }; // 202: the waiting page
const UPSTREAM_FAILURE = [502, 503, 504];

const FAULTS = [
  { type: "status", status: 500 },
  { type: "hang" },
  { type: "reset" },
  { type: "malformed" },
  { type: "status", status: 429, retryAfter: 0 },
  { type: "status", status: 503 },
];

/** mulberry32: a seeded generator, so a run can be replayed with --seed. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function operation(r, i, pick) {
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

/**
 * `total` requests from `concurrency` workers through `supervised` (supervised-router.js);
 * `control(method, path, body)` drives the emulator's faults and latency.
 */
export async function runFaults({ supervised, control, seed, total, concurrency, log }) {
  const random = seededRandom(seed);
  const pick = (n) => Math.floor(random() * n);
  const { current, countKey } = supervised;
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
      const op = operation(r, i, pick);
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
