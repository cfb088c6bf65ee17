/**
 * One LTI return mark replayed 10,000 times (issue 42): the router hosts two schools on a
 * SQLite store, "lti" (its LMS the LMS emulator, Canvas's shape, in its own process) and
 * "quiet" (no LMS; the LMS's deployment names "lti"). A learner of "lti" launches from the LMS (the instructor placed the
 * exam with Deep Linking first) and opens the exam: the open sets the return mark. Then
 * `GET /oral/lti/return` with that mark 10,000 times from a process of its own
 * (replay-driver.js), as an attacker with a script would: `concurrency` requests in
 * flight (default 8, `--replay-concurrency`), each sent as soon as one is answered, so
 * the router is never idle while they last. The driver runs at `nice` 19 by default
 * (`--replay-nice`): a learner's script runs on the learner's machine, not on the
 * router's cores, and on a 2-core bench machine a driver at the router's priority takes
 * one of the two from it; the replay rate it reached is reported beside the figures.
 * All from one address, with the router's
 * defaults: `returnLimit` lets 600 through at once and one more each 100 ms, the rest are
 * answered 429. Counted after: the `Submitted` entries queued (the store's list) and the
 * `Submitted` posts the LMS received. Timed throughout, from a third process
 * (quiet-driver.js, so the timer does not wait on the router's event loop): the quiet
 * school's instructor `GET /oral/courses`, one at a time, after a warm-up, alone
 * (baseline), during the replays, and after them (once the Submitted was posted). The
 * baseline and the replays alternate in 4 slices (250 quiet requests alone, then 2,500
 * replays with the quiet requests going on, four times), so a change in a shared
 * machine's load while the part runs falls on both sides of the comparison. This
 * process is the router's host and nothing else while the figures are taken.
 * Targets: exactly 1 Submitted queued and 1 posted; the quiet p95 during and after within
 * 2× its baseline, in the same run.
 */
import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sqliteStore } from "express-oral-assessments";
import { createBrowserPool } from "./lib/browser.js";
import { forkChild } from "./lib/child.js";
import { startEmulatorProcess } from "./lib/emulator.js";
import { cookieOf, startHost } from "./lib/host.js";
import { median, percentile, round, sleep } from "./lib/stats.js";
import { call, decode, launchOnce, placeExam, startLms } from "./lti.js";

const DRIVER = fileURLToPath(new URL("./replay-driver.js", import.meta.url));
const QUIET = fileURLToPath(new URL("./quiet-driver.js", import.meta.url));
const SCHOOLS = [{ id: "lti", name: "LMS School" }, { id: "quiet", name: "Quiet College" }];
const stats = (ms) => ({ n: ms.length, p50Ms: round(median(ms), 2), p95Ms: round(percentile(ms, 95), 2) });

/** This process's CPU ms and involuntary context switches (Linux; 0 elsewhere): how much of the machine the router got. */
function machineShare() {
  let preempted = 0;
  try {
    preempted = Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  } catch {
    // not Linux
  }
  const { user, system } = process.cpuUsage();
  return { at: performance.now(), cpuMs: (user + system) / 1000, preempted };
}

/** Per second of wall time between two `machineShare()` readings, summed into `into`. */
function addShare(into, from, to) {
  into.wallMs += to.at - from.at;
  into.cpuMs += to.cpuMs - from.cpuMs;
  into.preempted += to.preempted - from.preempted;
}
const perSecond = (s) => ({ cpuPercent: round((100 * s.cpuMs) / s.wallMs, 1), preemptedPerS: round((1000 * s.preempted) / s.wallMs, 1) });

/** Polls `check` every 100 ms until it answers true or `ms` ran out. */
async function until(check, ms) {
  const end = Date.now() + ms;
  while (!(await check()) && Date.now() < end) await sleep(100);
}

export async function runReturnReplays(_emulator, { replays = 10_000, concurrency = 8, quietRounds = 1_000, warmRounds = 300, slices = 4, floor = false, nice = 19, log }) {
  const emulator = await startEmulatorProcess({ organizations: SCHOOLS });
  await emulator.setRateLimits({ dev: 1_000_000, windowMs: 60_000 });
  const dir = mkdtempSync(join(tmpdir(), "eoa-replays-"));
  const store = sqliteStore({ filename: join(dir, "replays.sqlite") });
  const instructor = { id: "instructor-1", name: "Ines Instructor", givenName: "Ines", familyName: "Instructor", email: "ins@bench.example", role: "Instructor", sourcedId: "ins" };
  const learner = { id: "learner-1", name: "Lea Learner", givenName: "Lea", familyName: "Learner", email: "lea@bench.example", role: "Learner", sourcedId: "lea" };
  const lms = await startLms({ preset: "canvas", users: [instructor, learner] });
  const byId = (id) => {
    const org = emulator.organizations.find((o) => o.id === id);
    return org && { apiKey: org.testKey, examHost: org.examHost };
  };
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  const host = await startHost(emulator, {
    organizationOf: byId, fallbackOrganization: "lti", client: { rateLimitPerMinute: 1_000_000 },
    router: { store, lti: {
      keys: [{ kid: "bench-tool-1", privateKey }], registrations: [{ ...lms.registration, deployments: lms.registration.deployments.map((id) => ({ id, organization: "lti" })) }], allowLoopbackHttp: true, canLink: (_claims, { linkedTo }) => linkedTo !== "another-course",
      gradebook: { pollMs: 50 },
    } },
  });
  await lms.ask({ registerTool: `${host.url}/oral` });
  const agent = createBrowserPool();
  const driver = await forkChild(DRIVER, { what: "the replay driver", env: { REPLAY_NICE: String(nice) } });
  const quietDriver = await forkChild(QUIET, { what: "the quiet school's driver" });
  // `floor`: the replays go to a bare 429 (no router, no Express) on this same event loop, the
  // least any answer costs: what part of the "during" figure is the machine's, not the router's.
  const floorServer = floor ? http.createServer((_req, res) => res.writeHead(429, { "content-length": 0, "retry-after": "1" }).end()) : undefined;
  if (floorServer) await new Promise((resolve) => floorServer.listen(0, "127.0.0.1", resolve));
  const floorUrl = floorServer && `http://127.0.0.1:${floorServer.address().port}`;
  try {
    const { examId } = await host.seedExam("Replays", "lti");
    await host.seedExam("Quiet", "quiet");
    let linkId = await placeExam(agent, lms, examId);
    if (!linkId) {
      log("returnReplays: the Deep Linking placement did not complete; a link placed by hand, opened by the instructor first");
      linkId = await lms.ask({ addResourceLink: { title: "Replays", custom: { exam_id: examId } } });
      await launchOnce(agent, lms, "instructor-1", linkId);
    }
    const { launch, launchUrl } = await launchOnce(agent, lms, learner.id, linkId);
    const href = launch.status === 303 ? launch.headers.location : /href="([^"]*\/lti\/open\/[^"]+)"/.exec(launch.body)?.[1];
    if (!href) throw new Error(`returnReplays: the learner's launch answered ${launch.status}`);
    const opened = await call(agent, "GET", new URL(decode(href), launchUrl).href);
    const mark = (opened.headers["set-cookie"] ?? []).find((c) => c.startsWith("eoa_lti_return="))?.split(";")[0];
    if (opened.status !== 303 || !mark) throw new Error(`returnReplays: the open answered ${opened.status} without a return mark`);
    await until(async () => (await lms.ask({ gradebook: true })).started >= 1, 20_000);

    const quietUrl = `${host.url}/oral/courses`;
    const quietCookie = cookieOf("ins", "quiet");
    const quiet = (rounds) => quietDriver.ask({ url: quietUrl, cookie: quietCookie, rounds });
    await quiet(warmRounds); // warm-up: the JIT and the sockets
    const loadBefore = round(loadavg()[0], 2);
    // Alternating windows, so a change in the shared machine's load falls on both sides:
    // quietRounds / slices requests alone, then replays / slices replays with the quiet ones going on, `slices` times.
    const baseline = [];
    const during = [];
    const answered = { ok: 0, other: 0, statuses: {} };
    let replaysMs = 0;
    const alone = { wallMs: 0, cpuMs: 0, preempted: 0 };
    const busy = { wallMs: 0, cpuMs: 0, preempted: 0 };
    for (let slice = 0; slice < slices; slice += 1) {
      const a = machineShare();
      baseline.push(...(await quiet(Math.ceil(quietRounds / slices))));
      const b = machineShare();
      addShare(alone, a, b);
      const t = performance.now();
      const timing = quiet(0);
      const got = await driver.ask({ url: floorServer ? `${floorUrl}/oral/lti/return` : `${host.url}/oral/lti/return`, cookie: mark, count: replays / slices, concurrency });
      await quietDriver.ask({ stop: true });
      const timed = await timing;
      replaysMs += performance.now() - t;
      addShare(busy, b, machineShare());
      during.push(...timed);
      log(`returnReplays: slice ${slice + 1}: alone ${JSON.stringify(stats(baseline.slice(-Math.ceil(quietRounds / slices))))}, during ${JSON.stringify(stats(timed))}, answered ${JSON.stringify(got.statuses)}`);
      answered.ok += got.ok;
      answered.other += got.other;
      for (const [status, n] of Object.entries(got.statuses)) answered.statuses[status] = (answered.statuses[status] ?? 0) + n;
    }
    log(`returnReplays: baseline ${JSON.stringify(stats(baseline))}, during ${JSON.stringify(stats(during))}; ${replays} replays of one mark, ${concurrency} in flight, in ${slices} slices`);
    // The outbox posts the Submitted off the request's path; then a while longer, for any second one.
    await until(async () => (await lms.ask({ gradebook: true })).submitted >= 1, 20_000);
    await sleep(2_000);
    const after = await quiet(quietRounds);
    const listed = await store.listLtiScores("lti", { kind: "oral", examId, limit: 1_000 });
    const seen = await lms.ask({ gradebook: true });
    log(`returnReplays: the exam's entries in the store: ${listed.map((e) => `${e.score.activityProgress} (${e.state})`).join(", ") || "none"}; replays took ${Math.round(replaysMs)} ms`);
    return {
      floor, replays, concurrency, slices, driverNice: nice, replaysMs: Math.round(replaysMs), replaysPerS: Math.round((1000 * replays) / replaysMs), answered200: answered.ok, answeredOther: answered.other, statuses: answered.statuses,
      submittedQueued: listed.filter((s) => s.score.activityProgress === "Submitted").length,
      submittedPosts: seen.submitted, lmsPosts: seen.scores,
      baseline: stats(baseline), during: stats(during), after: stats(after),
      routerProcess: { baseline: perSecond(alone), during: perSecond(busy) },
      loadAverage: { before: loadBefore, after: round(loadavg()[0], 2) },
    };
  } finally {
    agent.destroy();
    await driver.close();
    await quietDriver.close();
    floorServer?.closeAllConnections();
    floorServer?.close();
    await host.close();
    await lms.close();
    await emulator.close();
    await store.close().catch(() => undefined); // the router may have closed it
    rmSync(dir, { recursive: true, force: true });
  }
}
