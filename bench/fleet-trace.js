/**
 * Where a storm's time went, from a timeline the fleet benchmark wrote
 * (`EOA_BENCH_FLEET_TRACE=<dir> node bench/run.js --only fleet --json`, one file per storm):
 *
 *   node bench/fleet-trace.js <dir>/<examId>.json [--limit 100] [--window 1000] [--latency 20]
 *
 * Prints when the first sign-in call reached the platform, how many calls went in the
 * first window from it, the calls of each generation (a burst of calls a window after the
 * one before: a slot is reused a window after the platform counted its call), and the
 * slot time left idle while students waited: for every millisecond, the free slots of the
 * platform's window (calls counted from their arrival plus the emulator's mean latency,
 * when the emulator counts them) that a student who had arrived and whose call had not
 * gone could have used. A whole slot idle for a window is 1 000 slot-ms.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { limit: { type: "string", default: "100" }, window: { type: "string", default: "1000" }, latency: { type: "string", default: "20" } },
});
const limit = Number(values.limit);
const windowMs = Number(values.window);
const latencyMs = Number(values.latency);

/** How many of the sorted `times` are ≤ t. */
function countUpTo(times, t) {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

for (const file of positionals) {
  const { students, requests } = JSON.parse(readFileSync(file, "utf8"));
  const calls = requests.filter((r) => r.path === "/students/sign-in-token").map((r) => r.at).sort((a, b) => a - b);
  if (calls.length === 0) {
    console.log(`${file}: no sign-in calls`);
    continue;
  }
  const arrivals = students.map((s) => s.arrivedMs).sort((a, b) => a - b);
  const counted = calls.map((t) => t + latencyMs);
  const generations = [[calls[0]]];
  for (const t of calls.slice(1)) {
    const current = generations.at(-1);
    if (t - current.at(-1) > windowMs / 4) generations.push([t]);
    else current.push(t);
  }
  const idleByTenth = [];
  for (let t = 0; t <= calls.at(-1); t++) {
    const free = limit - (countUpTo(counted, t) - countUpTo(counted, t - windowMs));
    const waiting = countUpTo(arrivals, t) - countUpTo(calls, t);
    if (free > 0 && waiting > 0) {
      const tenth = Math.floor(t / 100);
      idleByTenth[tenth] = (idleByTenth[tenth] ?? 0) + Math.min(free, waiting);
    }
  }
  const idle = idleByTenth.reduce((sum, v) => sum + (v ?? 0), 0);
  console.log(`${file}: ${students.length} students (last arrived at ${Math.round(arrivals.at(-1))} ms), ${calls.length} sign-in calls, ${requests.length - calls.length} other requests`);
  console.log(`  first call at ${Math.round(calls[0])} ms; ${countUpTo(calls, calls[0] + windowMs - 1)} calls in the first window from it; last call at ${Math.round(calls.at(-1))} ms; last answer to a student at ${Math.round(Math.max(...students.map((s) => s.endedMs)))} ms`);
  console.log(`  generations: ${generations.map((g) => `${g.length} at ${Math.round(g[0])}–${Math.round(g.at(-1))}`).join(", ")}`);
  console.log(`  idle slot-ms while students waited: ${idle} (per 100 ms: ${idleByTenth.map((v, i) => (v ? `${i * 100}:${v}` : "")).filter(Boolean).join(" ")})`);
}
