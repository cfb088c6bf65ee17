/**
 * Many organizations in one router (`organization` resolver), against an emulator process
 * hosting two schools, each with its own key and rate window.
 *
 * - noisyNeighbour: the quiet school's 50 students launch alone (the baseline), then the
 *   same while the storm school's 600 students launch on demand at its limit. Each school
 *   has its own client and budget, so the storm must not queue the quiet school's
 *   launches: target quietP99Ms within 2× quietBaselineP99Ms, measured in the same run.
 *   The host app runs in a child process (host-process.js), as a deployment runs
 *   it: the bench's 650 simulated browsers do not take the router's CPU (`hostIn:
 *   "process"`, `--organizations-host process`, runs it in this process as before).
 * - idle: 1 000 organizations (all on the quiet school's key) each make one instructor
 *   call, then stay unused past `organizationCache.idleMs`: the heap they leave behind,
 *   after a full GC, per organization (target < 5 KB), beside what they held while cached.
 * - cpuPerLaunch: the router host's CPU per launch in the storm, beside
 *   http-proxy-middleware's per request, and launches alone beside the floors under them
 *   (`launchesAlone`: hosts that do only what every launch must; floor-process.js).
 */
import { fileURLToPath } from "node:url";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import { createBrowserPool, get, launch } from "./lib/browser.js";
import { startEmulatorProcess } from "./lib/emulator.js";
import { cookieOf, startHost } from "./lib/host.js";
import { startHostProcess } from "./lib/host-process.js";
import { startStormDriver } from "./lib/storm-driver.js";
import { forkChild } from "./lib/child.js";
import { measureLaunchCpu } from "./lib/launch-cpu.js";
import { percentile, round, sleep } from "./lib/stats.js";

const SCHOOLS = [{ id: "storm", name: "Storm University" }, { id: "quiet", name: "Quiet College" }];

function gcFunction() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc");
}

const HPM_CHILD = fileURLToPath(new URL("./hpm-process.js", import.meta.url));
const NEIGHBOUR_CHILD = fileURLToPath(new URL("./cpu-neighbour.js", import.meta.url));

/** The 1-minute load average, two decimals. */
const load = () => round(os.loadavg()[0], 2);

/**
 * `rounds`: noisy-neighbour runs, each with its own host process and the machine's load
 * beside it (`noisyNeighbour` is the first, `noisyNeighbourRounds` all of them).
 * `cpuNeighbour`: a forked child spins a core through every round (bench/cpu-neighbour.js).
 */
export async function runOrganizations({ students = 600, quiet = 50, limit = 100, windowMs = 1_000, arrivalMs = 1_000, idleCount = 1_000, hostIn = "child", stormIn = "child", rounds = 1, cpuNeighbour = false, idle: runIdlePart = true, log }) {
  const emulator = await startEmulatorProcess({ organizations: SCHOOLS });
  let neighbour = cpuNeighbour ? await forkChild(NEIGHBOUR_CHILD, { what: "the CPU neighbour" }) : undefined;
  try {
    const all = [];
    for (let round_ = 1; round_ <= rounds; round_++) {
      if (rounds > 1) log(`organizations: noisy neighbour, round ${round_} of ${rounds}${neighbour ? " (with a CPU-bound neighbour)" : ""}`);
      const loadBefore = load();
      const result = await runNoisyNeighbour(emulator, { students, quiet, limit, windowMs, arrivalMs, hostIn, stormIn, log });
      all.push({ ...result, cpuNeighbour: neighbour !== undefined, loadAverage: { before: loadBefore, after: load() } });
    }
    await neighbour?.close();
    neighbour = undefined;
    const { stormCourseId, ...noisyNeighbour } = all[0];
    const proxyCpu = hostIn === "process" ? undefined : await runProxyCpu(emulator, { requests: noisyNeighbour.hostLaunchRequests, courseId: stormCourseId, arrivalMs, log, router: all });
    const cpuPerLaunch = proxyCpu && { ...proxyCpu, launchesAlone: await runLaunchFloors(log) };
    const idle = runIdlePart ? await runIdle(emulator, { count: idleCount, log }) : undefined;
    return {
      count: idleCount, noisyNeighbour, noisyNeighbourRounds: all.map(({ stormCourseId: _, ...r }) => r),
      ...(cpuPerLaunch ? { cpuPerLaunch } : {}), ...(idle ? { idle } : {}),
    };
  } finally {
    await neighbour?.close().catch(() => undefined);
    await emulator.close();
  }
}

/**
 * http-proxy-middleware's CPU per request on the same run: a minimal Express app with it
 * (hpm-process.js, a child process like the router's host) forwards as many requests as the
 * router's host received in the first round, arriving over the same `arrivalMs`, to the
 * emulator's GET /courses/:id with the storm school's key (rate limits lifted, latency
 * as in the storm). Beside it, the router's host CPU per launch in every round.
 */
async function runProxyCpu(emulator, { requests, courseId, arrivalMs, router, log }) {
  const storm = emulator.organizations.find((o) => o.id === "storm");
  await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
  const hpm = await forkChild(HPM_CHILD, { env: { HPM_OPTIONS: JSON.stringify({ target: `${emulator.url}/api/v1/dev`, apiKey: storm.testKey }) }, what: "the http-proxy-middleware process" });
  const agent = createBrowserPool();
  try {
    log(`organizations: ${requests} requests through http-proxy-middleware (its CPU per request)`);
    // Warm-up, as the router's host had its seeding and the quiet school alone.
    for (let i = 0; i < 50; i++) await get(agent, `${hpm.ready.url}/platform/courses/${courseId}`);
    await hpm.ask({ cpu: "start" });
    const loadBefore = load();
    const answers = await Promise.all(Array.from({ length: requests }, async (_, i) => {
      await sleep((i * arrivalMs) / requests);
      return get(agent, `${hpm.ready.url}/platform/courses/${courseId}`).then((r) => r.status, () => 0);
    }));
    const { cpuMs, requests: seen } = await hpm.ask({ cpu: "stop" });
    const perRound = router.map((r) => r.hostCpuPerLaunchMs);
    return {
      routerMsPerLaunch: router[0].hostCpuPerLaunchMs,
      routerMsPerLaunchRequest: router[0].hostCpuPerRequestMs,
      routerMsPerLaunchByRound: perRound,
      httpProxyMiddlewareMsPerRequest: round(cpuMs / seen, 3),
      httpProxyMiddlewareRequests: seen,
      httpProxyMiddlewareFailed: answers.filter((s) => s !== 200).length,
      loadAverage: { before: loadBefore, after: load() },
    };
  } finally {
    agent.destroy();
    await hpm.close();
  }
}

/**
 * The floor under the CPU per launch, on the same run: 2 000 launches alone (no rate
 * limit, 50 at a time; lib/launch-cpu.js) through the router's host, then through hosts
 * that do only what every launch must (floor-process.js: bare node:http; with Express;
 * with Express and axios), in ms of host CPU per launch.
 */
async function runLaunchFloors(log) {
  log("organizations: CPU per launch alone, the router's host and the floors under it");
  const loadBefore = load();
  const ms = async (options) => (await measureLaunchCpu({ organizations: true, ...options })).cpuMsPerLaunch;
  return {
    routerMsPerLaunch: await ms({}),
    floorMsPerLaunch: await ms({ floor: true }),
    floorExpressMsPerLaunch: await ms({ floor: true, stack: ["express"] }),
    floorExpressAxiosMsPerLaunch: await ms({ floor: true, stack: ["express", "axios"] }),
    loadAverage: { before: loadBefore, after: load() },
  };
}

const byId = (emulator) => (id) => {
  const org = emulator.organizations.find((o) => o.id === id);
  return org && { apiKey: org.testKey, examHost: org.examHost };
};

async function runNoisyNeighbour(emulator, { students, quiet, limit, windowMs, arrivalMs, hostIn, stormIn, log }) {
  await emulator.setRateLimits({ dev: limit, windowMs });
  await emulator.setLatency({ fixedMs: 20, jitterMs: 10 });
  const hostOptions = {
    client: { rateLimitPerMinute: limit, rateWindowMs: windowMs, timeoutMs: 10_000 },
    router: { waitingPageAfterMs: 2_000 },
  };
  // In a child process (the default): the router does not share its CPU with the bench's
  // 650 simulated browsers, as in a deployment; "process": all in this one.
  const host = hostIn === "process"
    ? await startHost(emulator, { organizationOf: byId(emulator), ...hostOptions })
    : await startHostProcess(emulator, { organizations: emulator.organizations, ...hostOptions });
  const agent = createBrowserPool();
  try {
    const stormExam = await host.seedExam("Storm", "storm");
    const quietExam = await host.seedExam("Quiet", "quiet");
    await sleep(windowMs + 100); // the seeding calls leave the window
    const wave = (org, examId, prefix, count) => Promise.all(Array.from({ length: count }, async (_, i) => {
      await sleep((i * arrivalMs) / count);
      return launch(agent, host.url, `/oral/launch/${examId}`, cookieOf(`${prefix}${i}`, org)).catch(() => ({ status: 0, ms: NaN }));
    }));
    log(`organizations: ${quiet} quiet students alone`);
    const alone = await wave("quiet", quietExam.examId, "qa", quiet);
    await sleep(windowMs + 100);
    // The storm's browsers: a process of their own (the default), or this one's loop, which also times the quiet school.
    const stormDriver = stormIn === "child" ? await startStormDriver() : undefined;
    log(`organizations: ${students} storm students at the storm school's limit, ${quiet} quiet students beside them`);
    // The router's event loop: this process's, or the child's.
    const loop = hostIn === "process" ? monitorEventLoopDelay({ resolution: 10 }) : undefined;
    loop?.enable();
    await host.loopStart?.();
    const driverLoop = monitorEventLoopDelay({ resolution: 10 });
    driverLoop.enable();
    const storm = stormDriver
      ? stormDriver.wave({ url: host.url, examId: stormExam.examId, org: "storm", prefix: "st", count: students, arrivalMs })
      : wave("storm", stormExam.examId, "st", students);
    await sleep(arrivalMs / 2); // the quiet school arrives while the storm's queue is longest
    const quietStartedAt = Date.now();
    const beside = await wave("quiet", quietExam.examId, "qb", quiet);
    // When the quiet school's sign-in calls reached the platform: late calls mean they
    // waited in the router before being sent, not in the platform's window.
    const seen = await emulator.requests(5_000);
    const quietCalls = seen.filter((r) => r.org === "quiet" && r.path === "/students/sign-in-token" && r.at >= quietStartedAt).map((r) => r.at - quietStartedAt);
    driverLoop.disable();
    const stormWalks = await storm;
    loop?.disable();
    const delay = loop ? { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 } : await host.loopStop();
    const times = (walks) => walks.filter((w) => w.status === 303).map((w) => w.ms);
    const cpu = delay.cpuMs === undefined ? {} : {
      hostCpuMs: round(delay.cpuMs, 1),
      hostLaunchRequests: delay.launchRequests,
      hostLaunchStudents: delay.launchStudents,
      // Per arriving launch (a student's first request), and per launch request (refreshes of the waiting page included).
      hostCpuPerLaunchMs: round(delay.cpuMs / delay.launchStudents, 3),
      hostCpuPerRequestMs: round(delay.cpuMs / delay.launchRequests, 3),
    };
    const baseline = percentile(times(alone), 99);
    const during = percentile(times(beside), 99);
    return {
      quietBaselineP99Ms: round(baseline, 1),
      quietP99Ms: round(during, 1),
      quietBaselineP50Ms: round(percentile(times(alone), 50), 1),
      quietP50Ms: round(percentile(times(beside), 50), 1),
      ratio: round(during / baseline, 2),
      quietFailed: [...alone, ...beside].filter((w) => w.status !== 303).length,
      stormRedirected: stormWalks.filter((w) => w.status === 303).length,
      stormLastMs: round(Math.max(...times(stormWalks)), 1),
      quietLastCallSentMs: quietCalls.length > 0 ? Math.max(...quietCalls) : undefined,
      quietPlatform429: seen.filter((r) => r.org === "quiet" && r.status === 429).length,
      host: hostIn === "process" ? "in the bench's process" : "child process",
      stormBrowsers: stormIn === "child" ? "child process" : "in the bench's process",
      eventLoopDelayP99Ms: round(delay.p99Ms, 1),
      eventLoopDelayMaxMs: round(delay.maxMs, 1),
      driverLoopDelayP99Ms: round(driverLoop.percentile(99) / 1e6, 1),
      driverLoopDelayMaxMs: round(driverLoop.max / 1e6, 1),
      ...cpu,
      stormCourseId: stormExam.courseId,
    };
  } finally {
    agent.destroy();
    await host.close();
    await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  }
}

async function runIdle(emulator, { count, idleMs = 2_000, concurrency = 16, log }) {
  await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
  const quietKey = byId(emulator)("quiet");
  const host = await startHost(emulator, {
    organizationOf: (id) => (id.startsWith("idle-") ? quietKey : undefined),
    client: { rateLimitPerMinute: 1_000_000_000 },
    router: { organizationCache: { idleMs, max: count * 2 } },
  });
  const agent = createBrowserPool();
  const gc = gcFunction();
  const heap = async () => {
    await sleep(100);
    gc();
    await sleep(50);
    gc();
    return process.memoryUsage().heapUsed;
  };
  try {
    const before = await heap();
    log(`organizations: ${count} organizations, one instructor call each`);
    let next = 0;
    let failed = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const res = await get(agent, `${host.url}/oral/courses`, cookieOf("ins", `idle-${i}`));
        if (res.status !== 200) failed += 1;
      }
    }));
    agent.destroy(); // the bench's own sockets are not the router's memory
    const held = await heap();
    log(`organizations: idle for ${idleMs} ms and a sweep`);
    await sleep(idleMs * 2 + 1_500);
    const after = await heap();
    return {
      failed,
      idleMs,
      heldPerOrganizationKb: round((held - before) / count / 1024, 2),
      heapPerOrganizationKb: round((after - before) / count / 1024, 2),
    };
  } finally {
    await host.close();
  }
}
