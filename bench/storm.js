/**
 * Exam-day storm: N students click Launch within `arrivalMs`, against the emulator's
 * per-key limit scaled down so the run is short (default 600 students at 100 per 1 s
 * window = 6 000/min, so the N ÷ rate bound is 6 s).
 *
 * - onDemand: no preparation. Every launch needs a token; the rate budget spreads them,
 *   students beyond the first seconds see the waiting page and follow its meta refresh.
 *   ratio = (time until the last student is redirected) ÷ (N ÷ rate), and
 *   ratioToPhysical = the same time ÷ the tighter bound a sliding window allows for
 *   students arriving as these do ((N − limit) ÷ rate, plus the first window's share of the
 *   arrival spread, plus one round trip: see lib/storm-bound.js). The round trip is the
 *   median of a few calls through the same client at the same emulator latency.
 * - preWarmed: the roster is prepared first (POST …/prepare), then the same storm; each
 *   launch should be served from memory, with no platform call.
 * A launch counts as failed unless it ends in a 303 whose token signs the student in at
 * the exam page (redeemed after the timing).
 */
import { createBrowserPool, launch, settleStorm } from "./lib/browser.js";
import { cookieOf, startHost, studentOf } from "./lib/host.js";
import { maxInAnyWindow, median, percentile, round, sleep } from "./lib/stats.js";
import { physicalBoundMs, ratioToPhysical } from "./lib/storm-bound.js";

export async function runStorms(emulator, { students = 600, limit = 100, windowMs = 1_000, arrivalMs = 1_000, latencyMs = 20, log }) {
  await emulator.setRateLimits({ dev: limit, windowMs });
  await emulator.setLatency({ fixedMs: latencyMs, jitterMs: latencyMs / 2 });
  const host = await startHost(emulator, {
    client: { rateLimitPerMinute: limit, rateWindowMs: windowMs, timeoutMs: 10_000 },
    router: { waitingPageAfterMs: 2_000 },
  });
  const agent = createBrowserPool();
  const boundMs = (students / limit) * windowMs;
  try {
    const first = await host.seedExam("Storm on demand");
    const trips = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await host.platform.request("GET", `/courses/${first.courseId}`);
      trips.push(performance.now() - started);
    }
    const roundTripMs = median(trips);
    const physical = { students, limit, windowMs, roundTripMs, arrivalMs };
    await sleep(windowMs + 100); // let the seeding and round-trip calls leave the window
    log(`storm: ${students} students on demand, limit ${limit}/${windowMs} ms (bound ${boundMs} ms)`);
    const onDemand = await storm(emulator, host, agent, first.examId, students, arrivalMs);
    const onDemandResult = {
      ratio: round(onDemand.lastMs / boundMs),
      ratioToPhysical: round(ratioToPhysical(onDemand.lastMs, physical)),
      lastRedirectMs: round(onDemand.lastMs, 1),
      boundMs,
      physicalBoundMs: round(physicalBoundMs(physical), 1),
      roundTripMs: round(roundTripMs, 1),
      failed: onDemand.failed,
      p50Ms: round(percentile(onDemand.times, 50), 1),
      p99Ms: round(percentile(onDemand.times, 99), 1),
      sawWaitingPage: onDemand.sawWaitingPage,
      platformCalls: onDemand.platform.length,
      platform429: onDemand.platform.filter((r) => r.status === 429).length,
      maxInAnyWindow: maxInAnyWindow(onDemand.platform.map((r) => r.at), windowMs),
    };

    const second = await host.seedExam("Storm pre-warmed");
    const roster = Array.from({ length: students }, (_, i) => studentOf(i)).map(({ email, firstName, lastName, orgInternalId }) => ({ email, firstName, lastName, orgInternalId }));
    const prepStarted = performance.now();
    const posted = await host.instructor("POST", `/oral-assessments/${second.examId}/prepare`, { startAt: new Date(Date.now() + 60_000).toISOString(), roster });
    if (posted.status !== 202) throw new Error(`prepare: ${posted.status} ${JSON.stringify(posted.body)}`);
    let progress = posted.body.data;
    while (progress.ready + progress.failed < students) {
      await sleep(250);
      progress = (await host.instructor("GET", `/oral-assessments/${second.examId}/prepare`)).body.data;
    }
    const prepareMs = performance.now() - prepStarted;
    log(`storm: roster prepared in ${Math.round(prepareMs)} ms (${progress.ready} ready, ${progress.failed} failed); pre-warmed storm`);
    const warm = await storm(emulator, host, agent, second.examId, students, arrivalMs);
    const after = (await host.instructor("GET", `/oral-assessments/${second.examId}/prepare`)).body.data;
    return {
      students,
      ratePerMinute: Math.round((limit * 60_000) / windowMs),
      onDemand: onDemandResult,
      preWarmed: {
        p50Ms: round(percentile(warm.times, 50), 2),
        p99Ms: round(percentile(warm.times, 99), 2),
        maxMs: round(Math.max(...warm.times), 2),
        failed: warm.failed,
        platformCallsDuringStorm: warm.platform.filter((r) => r.path === "/students/sign-in-token").length,
        handedOut: after.handedOut,
        prepareMs: Math.round(prepareMs),
        prepareCalls: progress.platformCalls,
      },
    };
  } finally {
    agent.destroy();
    await host.close();
    await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  }
}

/** One storm: students arrive evenly over `arrivalMs`; returns times, failures and what the platform saw. */
async function storm(emulator, host, agent, examId, students, arrivalMs) {
  const startedAt = performance.now();
  const wallStart = Date.now();
  const walks = await Promise.all(Array.from({ length: students }, async (_, i) => {
    await sleep((i * arrivalMs) / students);
    try {
      return await launch(agent, host.url, `/oral/launch/${examId}`, cookieOf(i));
    } catch (error) {
      return { status: 0, error: String(error), ms: NaN, endedAt: performance.now(), waitingPages: 0 };
    }
  }));
  const lastMs = Math.max(...walks.map((w) => w.endedAt)) - startedAt;
  // Redeemed after the timing: each token must sign its student in at the exam page.
  const { failed, platform } = await settleStorm(agent, emulator, walks, wallStart);
  return {
    lastMs,
    times: walks.filter((w) => w.status === 303).map((w) => w.ms),
    failed,
    sawWaitingPage: walks.filter((w) => w.waitingPages > 0).length,
    platform,
  };
}
