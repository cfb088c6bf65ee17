/**
 * The soak's `abuse` phase: one signed-in student reloading a launch link 200 times as
 * fast as one browser can, against a platform that fails their sign-in (an emulator
 * fault on `/students/sign-in-token` matching their e-mail) and then against a full
 * class (the emulator's `classCapacity`, the class filled first), while other students
 * launch other exams. Measured: the sign-in calls the abuser caused (target ≤ 5 each
 * time) and the other students' launch p99 meanwhile, against their p99 with nobody
 * abusing measured just before, in the same run (target: within 2×). The quiet p99 is
 * measured right before each case because a shared machine's load drifts over seconds.
 *
 * The router runs with its real defaults (launch limit, failure backoff, circuit
 * breaker, waiting page), in its own child process (this file with `child`), against an
 * emulator process of its own with small classes; only the platform client's rate is a
 * prod key's 600/min instead of the dev key's 60.
 *
 * `runAbuse({ log })` → the `abuse` figures; `abuseMet(figures)` → whether the targets hold.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createPlatformClient } from "express-oral-assessments";
import { startEmulatorProcess } from "../lib/emulator.js";
import { startHost, studentOf } from "../lib/host.js";
import { percentile, round } from "../lib/stats.js";
import { rawRequest } from "./http.js";

const RELOADS = 200;
/**
 * Other students' launches per block (each student once: a class holds them all). The
 * warm-up and four blocks stay under the key's 600 calls a minute, so no launch waits for
 * the rate budget unless the abuser's calls use it up, which is what the target catches.
 */
const OTHERS = 130;
const WARM_UP = 30;
const CLASS_CAPACITY = OTHERS;
const ABUSER = "abuser";
const SIGN_IN = "/students/sign-in-token";
const CLIENT = { rateLimitPerMinute: 600 };

/** The router child: the bench host app with the router's defaults, and an exam per phase. */
async function child() {
  const { EMULATOR_URL, EMULATOR_KEY } = process.env;
  const host = await startHost({ url: EMULATOR_URL, testKey: EMULATOR_KEY }, { client: CLIENT, router: { canLaunch: () => true } });
  const exams = {};
  for (const name of ["warmUp", "full", "quietBeforeFailing", "failing", "quietBeforeFull", "besideFull"]) exams[name] = await host.seedExam(`Abuse ${name}`);
  process.on("disconnect", () => { host.close().finally(() => process.exit(0)); });
  process.send?.({ type: "ready", url: `${host.url}/oral`, exams });
}

function startRouter(emulator) {
  const routerChild = fork(fileURLToPath(import.meta.url), ["child"], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, EMULATOR_URL: emulator.url, EMULATOR_KEY: emulator.testKey },
  });
  return new Promise((resolve, reject) => {
    routerChild.once("message", (m) => resolve({ ...m, stop: () => new Promise((r) => { routerChild.once("exit", r); routerChild.disconnect(); }) }));
    routerChild.once("exit", (code) => reject(new Error(`the abuse router exited (${code}) before it was ready`)));
  });
}

const launchOf = (router, examId, user) => rawRequest(router.url, { method: "GET", path: `/launch/${examId}`, headers: { cookie: `bench_user=${user}` } }, 60_000);

/** `count` students, each launching `examId` once in turn: their latencies (ms) and how many were not redirected. */
async function othersLaunch(router, examId, first, count) {
  const ms = [];
  let notRedirected = 0;
  for (let i = first; i < first + count; i++) {
    const started = performance.now();
    const res = await launchOf(router, examId, `o${i}`);
    ms.push(performance.now() - started);
    if (res.status !== 303) notRedirected += 1;
  }
  return { ms, notRedirected };
}

/**
 * The abuser's process (this file with `abuser <router url> <exam id>`): loaded first,
 * it says `ready`, then on `go` runs its reloads, one after the other.
 */
async function abuser(url, examId) {
  process.once("message", async () => {
    const statuses = {};
    for (let i = 0; i < RELOADS; i++) {
      const res = await launchOf({ url }, examId, ABUSER);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
    process.send?.({ type: "done", statuses });
    process.disconnect?.();
  });
  process.send?.({ type: "ready" });
}

/**
 * The abuser's 200 reloads, from a process of its own (a browser of its own): in this
 * process its answers would delay the other students' measured ones on one event loop.
 * The process is started and loaded before the block (`start` resolves then), so its
 * start-up (0.45–0.5 s of CPU on this machine) does not fall into the measured block;
 * `run()` starts the reloads and resolves with the statuses seen.
 */
function startReloader(router, examId) {
  const reloader = fork(fileURLToPath(import.meta.url), ["abuser", router.url, examId], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const exited = new Promise((_, reject) => reloader.once("exit", (code) => reject(new Error(`the abuser process exited (${code}) before it was done`))));
  exited.catch(() => {});
  const message = (type) => Promise.race([new Promise((resolve) => reloader.on("message", (m) => m.type === type && resolve(m))), exited]);
  return message("ready").then(() => ({
    run: () => {
      const done = message("done");
      reloader.send({ type: "go" });
      return done.then((m) => m.statuses);
    },
  }));
}

export async function runAbuse({ log }) {
  const emulator = await startEmulatorProcess({ classCapacity: CLASS_CAPACITY });
  let router;
  try {
    await emulator.setRateLimits({ dev: 1_000_000, prod: 1_000_000 });
    router = await startRouter(emulator);
    const { exams } = router;
    // Fill the abuser's class, through a client of its own (not the router's budget).
    const filler = createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url, rateLimitPerMinute: 1_000_000 });
    for (let i = 0; i < CLASS_CAPACITY; i++) {
      const { email, firstName, lastName, orgInternalId } = studentOf(`seat${i}`);
      await filler.students.createSignInToken({ email, firstName, lastName, orgInternalId, classId: exams.full.classId, courseId: exams.full.courseId });
    }
    filler.close();
    const abuserEmail = studentOf(ABUSER).email;
    const abuserCallsSince = async (since) => (await emulator.requests(5_000))
      .filter((r) => r.path === SIGN_IN && r.at >= since && r.body?.email === abuserEmail).length;

    // Warm-up (JIT, sockets).
    await othersLaunch(router, exams.warmUp.examId, 10_000, WARM_UP);
    let next = 0;
    /** Other students launching `examId` (a class of its own), while `during` runs if given. */
    const others = async (examId, during) => {
      const first = next;
      next += OTHERS;
      const [launched, duringResult] = await Promise.all([othersLaunch(router, examId, first, OTHERS), during?.()]);
      return { ...launched, duringResult };
    };

    log("abuse: quiet launches, then reloads against a platform failing for the abuser");
    const failingReloader = await startReloader(router, exams.failing.examId);
    const quietBeforeFailing = await others(exams.quietBeforeFailing.examId);
    await emulator.fault({ type: "status", status: 500, count: 1_000_000, pathPrefix: SIGN_IN, bodyContains: abuserEmail });
    const failingSince = Date.now();
    const failing = await others(exams.failing.examId, failingReloader.run);
    const failingCalls = await abuserCallsSince(failingSince);
    await emulator.clearFaults();

    log("abuse: quiet launches, then reloads against a full class");
    const fullReloader = await startReloader(router, exams.full.examId);
    const quietBeforeFull = await others(exams.quietBeforeFull.examId);
    const fullSince = Date.now();
    const full = await others(exams.besideFull.examId, fullReloader.run);
    const fullCalls = await abuserCallsSince(fullSince);

    const p99 = (block) => round(percentile(block.ms, 99), 1);
    const median = (block) => round(percentile(block.ms, 50), 1);
    return {
      reloadsPerStudent: RELOADS,
      signInCallsPerStudent: { failingPlatform: failingCalls, fullClass: fullCalls },
      abuserStatuses: { failingPlatform: failing.duringResult, fullClass: full.duringResult },
      otherStudentP99Ms: { failingPlatform: p99(failing), fullClass: p99(full) },
      otherStudentQuietP99Ms: { failingPlatform: p99(quietBeforeFailing), fullClass: p99(quietBeforeFull) },
      otherStudentMedianMs: { failingPlatform: median(failing), fullClass: median(full) },
      otherStudentQuietMedianMs: { failingPlatform: median(quietBeforeFailing), fullClass: median(quietBeforeFull) },
      otherStudentsNotRedirected: [quietBeforeFailing, failing, quietBeforeFull, full].reduce((n, b) => n + b.notRedirected, 0),
      otherStudentLaunchesPerBlock: OTHERS,
    };
  } finally {
    await router?.stop();
    await emulator.close();
  }
}

/** The targets: ≤ 5 calls per abuser in each case; other students all redirected, p99 within 2× of the quiet one. */
export function abuseMet(a) {
  const calls = a.signInCallsPerStudent;
  const p99 = a.otherStudentP99Ms;
  const quiet = a.otherStudentQuietP99Ms;
  return calls.failingPlatform <= 5 && calls.fullClass <= 5 && a.otherStudentsNotRedirected === 0
    && p99.failingPlatform <= 2 * quiet.failingPlatform && p99.fullClass <= 2 * quiet.fullClass;
}

if (process.argv[2] === "child") await child();
if (process.argv[2] === "abuser") await abuser(process.argv[3], process.argv[4]);
