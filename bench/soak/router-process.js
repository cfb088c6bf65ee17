/**
 * The router under soak, in its own process so that a crash is counted, not fatal: the
 * bench host app (built package, memory store) with a client tuned for a fault storm.
 * Every log line of the router and client goes to stdout as JSON, where the parent looks
 * for the key. Talks to the parent over IPC:
 *   → { type: "ready", url, ids }        once listening and seeded
 *   → { type: "unhandledRejection" }    each time one happens
 *   ← { type: "rss" } → { type: "rss", rss, heapUsed }   resident set size and JS heap after a full GC
 */
import v8 from "node:v8";
import vm from "node:vm";
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

if (process.argv[2] === "child") {
  const host = await startHost({ url: EMULATOR_URL, testKey: EMULATOR_KEY }, { client: { ...CLIENT, logger }, router: { ...ROUTER, logger } });
  const ids = await host.seedExam("Soak");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  process.on("message", (message) => {
    if (message?.type !== "rss") return;
    gc();
    gc();
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ type: "rss", rss, heapUsed });
  });
  process.on("disconnect", () => {
    host.close().finally(() => process.exit(0));
  });
  process.send?.({ type: "ready", url: `${host.url}/oral`, ids });
}
