/**
 * The router under soak, in its own process so that a crash is counted, not fatal: the
 * bench host app (built package) with a client tuned for a fault storm, and the store
 * `SOAK_STORE` names: `sqlite` (the default store, a file in a temp folder: what a user's
 * process holds, the records on disk) or `memory` (every record in this process's heap).
 * Every log line of the router and client goes to stdout as JSON, where the parent looks
 * for the key. Talks to the parent over IPC:
 *   → { type: "ready", url, ids }        once listening and seeded
 *   → { type: "unhandledRejection" }    each time one happens
 *   ← { type: "rss" } → { type: "rss", rss, heapUsed, heapTotal, external, kept }   resident set size and JS heap after a full GC,
 *                        and what the store keeps (`kept`: records and their JSON size, MB)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { DEFAULT_ORGANIZATION, memoryStore, sqliteStore } from "express-oral-assessments";
import { startHost } from "../lib/host.js";

const { EMULATOR_URL, EMULATOR_KEY } = process.env;
/** The deadlines the parent checks answers against are derived from these. */
export const CLIENT = { timeoutMs: 500, maxRetries: 1, deadlineMs: 2_000, retryBaseDelayMs: 20, retryMaxDelayMs: 100, maxRetryAfterMs: 1_000, rateLimitPerMinute: 1_000_000 };
// The soak launches the same few students thousands of times: the per-student fair share
// (a burst of 3, then 1 a minute) would answer 429 to nearly all of them, which is not what
// the faults run measures (the platform failing), so it is lifted here as in memory.js.
// So is the circuit breaker: a run that starts with 5 faults in a row opens it, and its
// 503s without a call would then stand in for the failures this run exists to exercise.
// The abuse phase (abuse.js) runs with the real defaults of both.
export const ROUTER = {
  launchWaitMs: 2_000, waitingPageAfterMs: 1_000, listCacheMs: 0,
  launchLimit: { burst: 1_000_000_000, refillMs: 1 }, circuitBreaker: { minFailures: 1_000_000_000 },
};

process.on("unhandledRejection", (reason) => {
  process.stdout.write(`${JSON.stringify({ level: "fatal", event: "unhandled_rejection", message: String(reason?.message ?? reason) })}\n`);
  process.send?.({ type: "unhandledRejection" });
});

const line = (level) => (obj, msg) => {
  process.stdout.write(`${JSON.stringify({ level, ...(typeof obj === "object" ? obj : { msg: obj }), ...(msg ? { msg } : {}) })}\n`);
};
const logger = { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };

/** Every course, class and exam the store lists, and the launch records of the soak's exam: how many, and their JSON size. */
async function keptBy(store, ids) {
  const org = DEFAULT_ORGANIZATION;
  const courses = await store.listCourses(org);
  const classes = (await Promise.all(courses.map((c) => store.listClasses(org, c.id)))).flat();
  const exams = (await Promise.all(classes.map((c) => store.listAssessments(org, c.id)))).flat();
  const launches = Object.values(await store.countLaunches(org, { kind: "oral", examId: ids.examId })).reduce((a, b) => a + b, 0);
  const page = await store.listLaunches(org, { kind: "oral", examId: ids.examId, limit: 1 });
  const perLaunch = page.records[0] ? JSON.stringify(page.records[0]).length : 0;
  const bytes = JSON.stringify([courses, classes, exams]).length + launches * perLaunch;
  return { courses: courses.length, classes: classes.length, exams: exams.length, launches, jsonMb: Math.round(bytes / 1e5) / 10 };
}

if (process.argv[2] === "child") {
  const dir = process.env.SOAK_STORE === "memory" ? undefined : mkdtempSync(join(tmpdir(), "eoa-soak-"));
  const store = dir ? sqliteStore({ filename: join(dir, "soak.sqlite") }) : memoryStore();
  process.on("exit", () => { if (dir) rmSync(dir, { recursive: true, force: true }); });
  const host = await startHost({ url: EMULATOR_URL, testKey: EMULATOR_KEY }, { client: { ...CLIENT, logger }, router: { ...ROUTER, logger, store } });
  const ids = await host.seedExam("Soak");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  process.on("message", (message) => {
    if (message?.type !== "rss") return;
    gc();
    gc();
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    // SOAK_HEAP_DIR: a heap snapshot beside each measure (at the warm-up and at the end), to
    // see what grew. The snapshot writer's own memory then stays in RSS: read the heap, not RSS.
    if (process.env.SOAK_HEAP_DIR) v8.writeHeapSnapshot(join(process.env.SOAK_HEAP_DIR, `router-${Date.now()}.heapsnapshot`));
    keptBy(store, ids).then((kept) => process.send?.({ type: "rss", rss, heapUsed, heapTotal, external, kept }));
  });
  process.on("disconnect", () => {
    host.close().finally(() => process.exit(0));
  });
  process.send?.({ type: "ready", url: `${host.url}/oral`, ids });
}
