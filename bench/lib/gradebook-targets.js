/** The rows of the gradebook parts (issue 42): the outbox claim at size, one return mark replayed. */
export function gradebookRows({ gradebookClaim: c, returnReplays: r }) {
  const rows = [];
  if (c) {
    rows.push(["gradebook claim: load average before / after", `${c.loadAverage.before} / ${c.loadAverage.after}`]);
    for (const name of ["sqlite", "postgres"]) {
      for (const size of c.rows) {
        const m = c[name][size];
        const big = size === Math.max(...c.rows);
        rows.push([`gradebook claim, ${name}: ${size} rows (half sent), claim of ${c.batch} p50 / p95 (ms)`, `${m.p50Ms} / ${m.p95Ms}`, ...(big ? ["p95 < 5", m.p95Ms < 5] : [])]);
      }
    }
  }
  if (r) {
    rows.push(
      ["return replays: load average before / after", `${r.loadAverage.before} / ${r.loadAverage.after}`],
      [`return replays${r.floor ? " (to a bare 429, not the router)" : ""}: ${r.replays} replays of one mark, ${r.concurrency} in flight from a driver at nice ${r.driverNice ?? 0}, answered 200 / 429 / other (in ${r.replaysMs} ms, ${r.replaysPerS ?? "?"} a second)`, `${r.answered200} / ${r.statuses?.[429] ?? 0} / ${r.answeredOther - (r.statuses?.[429] ?? 0)}`],
      ...(r.floor ? [] : [
        ["return replays: Submitted scores queued (store)", r.submittedQueued, "= 1", r.submittedQueued === 1],
        ["return replays: Submitted posts the LMS received", r.submittedPosts, "= 1", r.submittedPosts === 1],
      ]),
      [`return replays: other school p50 / p95 baseline, ${r.baseline.n} requests (ms)`, `${r.baseline.p50Ms} / ${r.baseline.p95Ms}`],
      [`return replays: other school p50 / p95 during, ${r.during.n} requests (ms)`, `${r.during.p50Ms} / ${r.during.p95Ms}`, `p95 ≤ 2 × ${r.baseline.p95Ms}`, r.during.p95Ms <= 2 * r.baseline.p95Ms],
      ...(r.routerProcess ? [["return replays: router process CPU % / preempted per s, alone → during",
        `${r.routerProcess.baseline.cpuPercent} / ${r.routerProcess.baseline.preemptedPerS} → ${r.routerProcess.during.cpuPercent} / ${r.routerProcess.during.preemptedPerS}`]] : []),
      [`return replays: other school p50 / p95 after, ${r.after.n} requests (ms)`, `${r.after.p50Ms} / ${r.after.p95Ms}`, `p95 ≤ 2 × ${r.baseline.p95Ms}`, r.after.p95Ms <= 2 * r.baseline.p95Ms],
    );
  }
  return rows;
}
