/**
 * The fleet storm: `instances` router processes (bench/fleet-instance.js, the built
 * package in fleet mode) behind a round-robin balancer (lib/balancer.js), one emulator,
 * one key, one Redis, the key's limit scaled down as in storm.js (100 per 1 s window).
 *
 * - onDemand: N students launch within `arrivalMs` through the balancer; their waiting
 *   pages' refreshes land on any instance. ratio and ratioToPhysical as in storm.js,
 *   with the key's limit shared by the whole fleet; signInCalls must equal N.
 * - preWarmed: the roster is prepared (POST …/prepare on one instance), then the same
 *   storm: p99, sign-in calls during the storm, and duplicate tokens (a token handed
 *   to two launches).
 * - killOne: an on-demand storm during which one instance is SIGKILLed; its students'
 *   requests fail at the balancer and are retried like a browser's reload (up to 5
 *   times, a second apart). failed counts students who never got a working token.
 *
 * Before them, a small storm on another exam warms the new processes up (see runFleet).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { createPlatformClient } from "express-oral-assessments";
import { startBalancer } from "./lib/balancer.js";
import { createBrowserPool, launch, settleStorm } from "./lib/browser.js";
import { cookieOf, studentOf } from "./lib/host.js";
import { maxInAnyWindow, median, percentile, round, sleep } from "./lib/stats.js";
import { physicalBoundMs, ratioToPhysical } from "./lib/storm-bound.js";

const INSTANCE = fileURLToPath(new URL("./fleet-instance.js", import.meta.url));

/** One router instance (fleet-instance.js) with `env`; resolves once it listens. */
export async function startInstance(env) {
  const child = spawn(process.execPath, [INSTANCE], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`a fleet instance exited (${code}) before listening`)));
  });
  const instance = { port, child, alive: true };
  child.once("exit", () => { instance.alive = false; });
  return instance;
}

export async function stop(instance, signal = "SIGTERM") {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = once(instance.child, "exit");
  instance.child.kill(signal);
  const timer = setTimeout(() => instance.child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

export async function runFleet(emulator, { instances: count = 4, students = 600, limit = 100, windowMs = 1_000, arrivalMs = 1_000, latencyMs = 20, redisUrl, log }) {
  // The machine's 1-minute load at the start and the end: figures from a busy machine are not comparable.
  const loadBefore = round(loadavg()[0], 2);
  await emulator.setRateLimits({ dev: limit, windowMs });
  await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  // The exams, made directly on the platform so every instance knows them (FLEET_EXAMS).
  const admin = createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url, rateLimitPerMinute: limit, rateWindowMs: windowMs });
  const exams = {};
  const seed = async (name) => {
    const course = await admin.courses.create({ name });
    const cls = await admin.classes.create(course.data._id, { name, startDate: "2026-09-01", endDate: "2026-12-20" });
    const exam = await admin.oralAssessments.create({ name, classId: cls.data._id, questions: [{ text: "Why?" }] });
    exams[exam.data._id] = { classId: cls.data._id, courseId: course.data._id };
    return exam.data._id;
  };
  const onDemandExam = await seed("Fleet on demand");
  const warmExam = await seed("Fleet pre-warmed");
  const killExam = await seed("Fleet kill one");
  const warmUpExam = await seed("Fleet warm-up");
  const trips = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await admin.courses.list();
    trips.push(performance.now() - started);
  }
  admin.close();
  await emulator.setLatency({ fixedMs: latencyMs, jitterMs: latencyMs / 2 });
  const physical = { students, limit, windowMs, roundTripMs: median(trips) + latencyMs, arrivalMs };

  const env = {
    FLEET_REDIS_URL: redisUrl, FLEET_SECRET: randomBytes(32).toString("base64url"), FLEET_PREFIX: `eoabench${randomBytes(3).toString("hex")}`,
    FLEET_API_KEY: emulator.testKey, FLEET_EMULATOR_URL: emulator.url, FLEET_LIMIT: String(limit), FLEET_WINDOW_MS: String(windowMs),
    FLEET_EXAMS: JSON.stringify(exams),
  };
  const instances = await Promise.all(Array.from({ length: count }, () => startInstance(env)));
  const balancer = await startBalancer(instances);
  const agent = createBrowserPool();
  try {
    await sleep(500); // the instances reach Redis
    // New processes run their first launches cold (lazy compilation, the JIT, first Redis
    // round trips); a fleet on exam day has been serving for a while, as the single-instance
    // storm's host has (the memory benchmark runs before it). One small storm warms them.
    log(`fleet: warming up the ${count} instances (${Math.ceil(students / 3)} launches)`);
    await storm(emulator, balancer.url, agent, warmUpExam, Math.ceil(students / 3), arrivalMs, 0);
    await sleep(windowMs * 2 + 500); // the warm-up's calls leave the window
    log(`fleet: ${count} instances, ${students} students on demand, limit ${limit}/${windowMs} ms`);
    const onDemand = await storm(emulator, balancer.url, agent, onDemandExam, students, arrivalMs, 0);
    const boundMs = (students / limit) * windowMs;

    const roster = Array.from({ length: students }, (_, i) => studentOf(i)).map(({ email, firstName, lastName, orgInternalId }) => ({ email, firstName, lastName, orgInternalId }));
    // Prepared on one instance (the plan runs where it was posted).
    const base = `http://127.0.0.1:${instances[0].port}/oral`;
    const instructor = async (method, path, body) => {
      const res = await fetch(base + path, { method, headers: { cookie: cookieOf("ins"), ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return { status: res.status, body: await res.json() };
    };
    const posted = await instructor("POST", `/oral-assessments/${warmExam}/prepare`, { startAt: new Date(Date.now() + 60_000).toISOString(), roster });
    if (posted.status !== 202) throw new Error(`prepare: ${posted.status}`);
    let progress = posted.body.data;
    while (progress.ready + progress.failed < students) {
      await sleep(250);
      progress = (await instructor("GET", `/oral-assessments/${warmExam}/prepare`)).body.data;
    }
    await sleep(windowMs);
    log(`fleet: roster prepared (${progress.ready} ready); pre-warmed storm`);
    const warm = await storm(emulator, balancer.url, agent, warmExam, students, arrivalMs, 0);
    const tokens = warm.locations.filter(Boolean);

    await sleep(windowMs * 2);
    log("fleet: on-demand storm with one instance SIGKILLed halfway");
    const victim = instances[count - 1];
    setTimeout(() => void stop(victim, "SIGKILL"), arrivalMs / 2);
    const killed = await storm(emulator, balancer.url, agent, killExam, students, arrivalMs, 5);

    return {
      instances: count,
      load: { before: loadBefore, after: round(loadavg()[0], 2) },
      onDemand: {
        students,
        ratio: round(onDemand.lastMs / boundMs),
        ratioToPhysical: round(ratioToPhysical(onDemand.lastMs, physical)),
        physicalBoundMs: round(physicalBoundMs(physical), 1),
        lastRedirectMs: round(onDemand.lastMs, 1),
        lastSignInCallMs: onDemand.lastCallMs,
        failed: onDemand.failed,
        platform429: onDemand.platform.filter((r) => r.status === 429).length,
        signInCalls: onDemand.platform.length,
        maxInAnyWindow: maxInAnyWindow(onDemand.platform.map((r) => r.at), windowMs),
      },
      preWarmed: {
        p99Ms: round(percentile(warm.times, 99), 2),
        failed: warm.failed,
        platformCalls: warm.platform.length,
        duplicateTokens: tokens.length - new Set(tokens).size,
      },
      killOne: { failed: killed.failed, signInCalls: killed.platform.length },
    };
  } finally {
    agent.destroy();
    await balancer.close();
    await Promise.all(instances.map((i) => stop(i)));
    await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  }
}

/** One storm through the balancer; `retries`: reloads after a failed answer (a dead instance), a second apart. */
async function storm(emulator, base, agent, examId, students, arrivalMs, retries) {
  const startedAt = performance.now();
  const wallStart = Date.now();
  const walks = await Promise.all(Array.from({ length: students }, async (_, i) => {
    await sleep((i * arrivalMs) / students);
    const started = performance.now();
    const arrivedMs = started - startedAt;
    let path = `/oral/launch/${examId}`;
    for (let attempt = 0, hops = 0; ; attempt++) {
      let walk;
      try {
        walk = await launch(agent, base, path, cookieOf(i));
      } catch (error) {
        walk = { status: 0, error: String(error), endedAt: performance.now(), waitingPages: 0 };
      }
      // A waiting page whose attempt was lost (expired under load) sends the browser back
      // to the launch URL (a 303 to a relative path), which it follows, as a browser does.
      if (walk.status === 303 && walk.location?.startsWith("/") && hops < 100) {
        hops += 1;
        attempt -= 1;
        path = walk.location;
        continue;
      }
      // Still sent back after 100 start-overs: a failed student, not a token to redeem.
      if (walk.status === 303 && walk.location?.startsWith("/")) return { ...walk, status: "startOverLoop", location: undefined, ms: performance.now() - started, arrivedMs };
      if (walk.status === 303 || attempt >= retries) return { ...walk, ms: performance.now() - started, arrivedMs };
      await sleep(1_000);
    }
  }));
  const lastMs = Math.max(...walks.map((w) => w.endedAt)) - startedAt;
  // EOA_BENCH_FLEET_TRACE=<dir>: each storm's timeline, for bench/fleet-trace.js.
  if (process.env.EOA_BENCH_FLEET_TRACE) await writeTrace(emulator, examId, walks, startedAt, wallStart);
  const { failed, platform } = await settleStorm(agent, emulator, walks, wallStart);
  return {
    lastMs,
    // When the platform received the storm's last sign-in call: what is left after it is
    // the call's answer and the student's next look (a held request, or a waiting page's refresh).
    lastCallMs: platform.length > 0 ? Math.max(...platform.map((r) => r.at)) - wallStart : undefined,
    times: walks.filter((w) => w.status === 303).map((w) => w.ms),
    locations: walks.map((w) => w.location),
    failed,
    platform,
  };
}

/**
 * Writes one storm's timeline to `<EOA_BENCH_FLEET_TRACE>/<examId>.json` (read by
 * bench/fleet-trace.js): each student's arrival and last answer (ms from the storm's
 * start), and every API request the emulator logged since (`at`: when it arrived there).
 */
async function writeTrace(emulator, examId, walks, startedAt, wallStart) {
  const dir = process.env.EOA_BENCH_FLEET_TRACE;
  mkdirSync(dir, { recursive: true });
  const requests = (await emulator.requests(10_000)).filter((r) => r.at >= wallStart)
    .map((r) => ({ at: r.at - wallStart, path: r.path, status: r.status }));
  const students = walks.map((w, i) => ({ i, arrivedMs: round(w.arrivedMs, 1), endedMs: round(w.endedAt - startedAt, 1), status: w.status, waitingPages: w.waitingPages }));
  writeFileSync(`${dir}/${examId}.json`, JSON.stringify({ wallStart, students, requests }));
}
