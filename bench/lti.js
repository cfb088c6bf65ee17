/**
 * LTI storm (issue 27.9): N learners (default 600) click the exam's link in the LMS
 * within `arrivalMs` (default a minute), on a pre-warmed exam. The LMS is the LMS
 * emulator (a preset, default Canvas's shape) in its own process (lms-process.js); the
 * router is the bench host's, registered as its tool.
 *
 * First the instructor places the exam with Deep Linking (the LMS's *Add an oral exam*,
 * the tool's picker, its signed response posted back), as course binding requires; then
 * the roster is prepared (POST …/prepare: sign-in tokens made ready, one platform call
 * per student). Then each learner walks the real flow over HTTP with its own cookies:
 * the LMS's frame document → **login** (the tool) → the LMS's authorization → **launch**
 * (the tool: POST /lti/launch) → **open** (the tool: the single-use link, a 303 to the
 * exam page). Reported: p50/p99 of each of the tool's three steps, failures, and the
 * platform's sign-in calls per student (the prepare's and the storm's). A walk counts as
 * failed unless its token signs the student in at the exam page (redeemed after the
 * timing). Targets: p99 of each step < 50 ms; one sign-in call per student.
 */
import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import { loadavg } from "node:os";
import { fileURLToPath, URLSearchParams } from "node:url";
import { createBrowserPool, redeems } from "./lib/browser.js";
import { forkChild } from "./lib/child.js";
import { startHost, studentOf } from "./lib/host.js";
import { percentile, round, sleep } from "./lib/stats.js";

const CHILD = fileURLToPath(new URL("./lms-process.js", import.meta.url));
export const decode = (t) => t.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))).replace(/&amp;/g, "&");
const formOf = (html) => ({
  action: decode(/<form[^>]*action="([^"]+)"/.exec(html)?.[1] ?? ""),
  fields: Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], decode(m[2])])),
});

/** One request; resolves with status, headers and body text. `form`: posted urlencoded. */
export function call(agent, method, url, { form, cookie } = {}) {
  return new Promise((resolve, reject) => {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const headers = { ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }) };
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export async function startLms(options) {
  const { ready, ask, close } = await forkChild(CHILD, { env: { LMS_OPTIONS: JSON.stringify(options) }, what: "the LMS process" });
  return { url: ready.url, registration: ready.registration, ask, close };
}

/**
 * A click on `linkId` as `userId`: the LMS's frame → the tool's login → the LMS's auth →
 * the tool's launch. Answers the launch's answer and the ms of the tool's two steps.
 */
export async function launchOnce(agent, lms, userId, linkId) {
  const frame = await call(agent, "GET", `${lms.url}/launch/${encodeURIComponent(linkId)}?user=${encodeURIComponent(userId)}`);
  const login = formOf(frame.body);
  let t = performance.now();
  const loggedIn = await call(agent, "POST", login.action, { form: login.fields });
  const loginMs = performance.now() - t;
  const cookie = loggedIn.headers["set-cookie"]?.[0]?.split(";")[0];
  const next = loggedIn.status === 302 ? loggedIn.headers.location : /id="next" href="([^"]+)"/.exec(loggedIn.body)?.[1];
  if (!next) throw new Error(`login answered ${loggedIn.status}`);
  const auth = await call(agent, "GET", decode(next));
  const post = formOf(auth.body);
  t = performance.now();
  const launch = await call(agent, "POST", post.action, { form: post.fields, cookie });
  const launchMs = performance.now() - t;
  return { launch, launchUrl: post.action, loginMs, launchMs, cookie };
}

/** The instructor's Deep Linking placement; answers the placed link's id, or undefined when the tool offers no picker. */
export async function placeExam(agent, lms, examId) {
  const dl = await lms.ask({ openDeepLinking: true });
  const { launch, launchUrl } = await launchOnce(agent, lms, "instructor-1", dl);
  const pick = /name="pick" value="([^"]+)"/.exec(launch.body)?.[1];
  if (launch.status !== 200 || !pick) return undefined;
  const picker = formOf(launch.body);
  const chosen = await call(agent, "POST", new URL(picker.action, launchUrl).href, { form: { pick, examId } });
  const response = formOf(chosen.body);
  const returned = await call(agent, "POST", response.action, { form: response.fields });
  return /<li id="([^"]+)">/.exec(returned.body)?.[1];
}

const WARM_UP = 5;
const text = (html, id) => decode(new RegExp(`id="${id}">([^<]*)<`).exec(html)?.[1] ?? "");

/**
 * *Prepare this exam for the course* as the instructor does it (ltiRoster): their launch
 * of the link, the page's form posted with the start time (the tool reads the roster
 * through NRPS: a token, then pages of 50), then its progress page until every prepared
 * learner's token is ready or failed. Answers the learners prepared and the last progress.
 */
async function prepareThroughNrps(agent, lms, linkId, startAt, log) {
  const { launch, launchUrl, cookie } = await launchOnce(agent, lms, "instructor-1", linkId);
  const action = decode(/<form id="prepare-course" method="post" action="([^"]+)"/.exec(launch.body)?.[1] ?? "");
  const form = /name="form" value="([^"]+)"/.exec(launch.body)?.[1];
  if (!action || !form) throw new Error(`ltiRoster: the instructor's page offers no Prepare this exam for the course (${launch.status})`);
  const t = performance.now();
  const posted = await call(agent, "POST", new URL(action, launchUrl).href, { form: { form, startAt, tzOffsetMin: "0" }, cookie }); // from the launch's browser, as the form is bound to it
  const postMs = performance.now() - t;
  if (posted.status !== 200) throw new Error(`ltiRoster: the form post answered ${posted.status}: ${decode(posted.body.replace(/<style[\s\S]*?<\/style>|<[^>]+>/g, " ")).replace(/\s+/g, " ").slice(0, 600)}`);
  const prepared = Number(text(posted.body, "p-roster"));
  const progressUrl = decode(/id="progress-link" href="([^"]+)"/.exec(posted.body)?.[1] ?? "");
  log(`ltiRoster: NRPS read ${text(posted.body, "r-learners")} learners in ${text(posted.body, "r-pages")} pages (${Math.round(postMs)} ms), ${prepared} prepared, ${text(posted.body, "r-left-out")} left out`);
  let page = posted.body;
  while (Number(text(page, "p-ready")) + Number(text(page, "p-failed")) < prepared) {
    await sleep(250);
    page = (await call(agent, "GET", progressUrl)).body;
  }
  return { prepared, ready: Number(text(page, "p-ready")), failed: Number(text(page, "p-failed")), postMs: round(postMs, 1), pages: Number(text(posted.body, "r-pages")) };
}

/** One learner's click, timed: login, launch, and the single-use link's open (a 303 to the exam page). */
async function walk(agent, lms, userId, linkId) {
  try {
    const { launch, launchUrl, loginMs, launchMs } = await launchOnce(agent, lms, userId, linkId);
    const href = launch.status === 303 ? launch.headers.location : /href="([^"]*\/lti\/open\/[^"]+)"/.exec(launch.body)?.[1];
    if (!href) return { ok: false, loginMs, launchMs, why: `launch ${launch.status}` };
    const t = performance.now();
    const opened = await call(agent, "GET", new URL(decode(href), launchUrl).href);
    const openMs = performance.now() - t;
    return { ok: opened.status === 303, loginMs, launchMs, openMs, location: opened.headers.location, why: `open ${opened.status}` };
  } catch (error) {
    return { ok: false, why: String(error) };
  }
}

/** `prepareVia`: `"api"` (POST …/prepare with the roster, the `lti` part) or `"nrps"` (the instructor's form, the roster from the LMS: the `ltiRoster` part). */
export async function runLtiStorm(emulator, { students = 600, arrivalMs = 60_000, preset = "canvas", limit = 100, windowMs = 1_000, prepareVia = "api", gradebook = true, log }) {
  // The platform's per-key limit scaled as the exam-day storm's (storm.js), so the prepare takes seconds.
  await emulator.setRateLimits({ dev: limit, windowMs });
  const instructor = { id: "instructor-1", name: "Ines Instructor", givenName: "Ines", familyName: "Instructor", email: "ins@bench.example", role: "Instructor", sourcedId: "ins" };
  const learnerOf = (s) => ({ id: s.id, name: `${s.firstName} ${s.lastName}`, givenName: s.firstName, familyName: s.lastName, email: s.email, role: "Learner", sourcedId: s.orgInternalId });
  const learners = Array.from({ length: students }, (_, i) => learnerOf(studentOf(i)));
  // A few learners off the roster warm the learner path (JIT, keep-alive sockets) before the prepare and the storm.
  const warmers = Array.from({ length: WARM_UP }, (_, i) => learnerOf(studentOf(`w${i}`)));
  const lms = await startLms({ preset, users: [instructor, ...learners, ...warmers] });
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  const host = await startHost(emulator, { client: { rateLimitPerMinute: limit, rateWindowMs: windowMs, timeoutMs: 10_000 }, router: { lti: { keys: [{ kid: "bench-tool-1", privateKey }], registrations: [lms.registration], allowLoopbackHttp: true, canLink: (_claims, { linkedTo }) => linkedTo !== "another-course", ...(gradebook ? {} : { gradebook: false }) } } });
  await lms.ask({ registerTool: `${host.url}/oral` });
  const agent = createBrowserPool();
  try {
    const { examId } = await host.seedExam("LTI storm");
    // Course binding: the instructor places the exam first. Should the picker not answer,
    // a link placed by hand (custom exam_id), opened once by the instructor, stands in.
    let linkId = await placeExam(agent, lms, examId);
    if (!linkId) {
      log("lti: the Deep Linking placement did not complete; placing a link by hand (custom exam_id), opened by the instructor first");
      linkId = await lms.ask({ addResourceLink: { title: "LTI storm", custom: { exam_id: examId } } });
      await launchOnce(agent, lms, "instructor-1", linkId);
    }
    for (const w of warmers) await walk(agent, lms, w.id, linkId);
    const roster = learners.map((_, i) => studentOf(i)).map(({ email, firstName, lastName, orgInternalId }) => ({ email, firstName, lastName, orgInternalId }));
    const prepWall = Date.now();
    let progress;
    let nrps;
    if (prepareVia === "nrps") {
      nrps = await prepareThroughNrps(agent, lms, linkId, new Date(Date.now() + 120_000).toISOString(), log);
      progress = nrps;
    } else {
      const posted = await host.instructor("POST", `/oral-assessments/${examId}/prepare`, { startAt: new Date(Date.now() + 120_000).toISOString(), roster });
      if (posted.status !== 202) throw new Error(`prepare: ${posted.status} ${JSON.stringify(posted.body)}`);
      progress = posted.body.data;
      while (progress.ready + progress.failed < students) {
        await sleep(250);
        progress = (await host.instructor("GET", `/oral-assessments/${examId}/prepare`)).body.data;
      }
    }
    log(`lti: ${preset} link placed, ${progress.ready} sign-in tokens ready; ${students} learners over ${arrivalMs} ms`);
    const loadBefore = round(loadavg()[0], 2);
    const stormWall = Date.now();
    const walks = await Promise.all(learners.map(async (learner, i) => {
      await sleep((i * arrivalMs) / students);
      return walk(agent, lms, learner.id, linkId);
    }));
    const stormMs = Date.now() - stormWall;
    // Redeemed after the timing: each token must sign its learner in at the exam page.
    let failed = 0;
    for (let i = 0; i < walks.length; i += 50) {
      const ok = await Promise.all(walks.slice(i, i + 50).map((w) => (w.ok ? redeems(agent, w.location) : false)));
      failed += ok.filter((x) => !x).length;
    }
    const reasons = [...new Set(walks.filter((w) => !w.ok).map((w) => w.why))].slice(0, 3);
    if (reasons.length > 0) log(`lti: failures, e.g. ${reasons.join("; ")}`);
    const signIns = (await emulator.requests(5_000)).filter((r) => r.path === "/students/sign-in-token");
    const inStorm = signIns.filter((r) => r.at >= stormWall).length;
    const all = signIns.filter((r) => r.at >= prepWall).length;
    // The LMS gradebook (AGS): each learner's Started, posted by the outbox off the launch's path, at its own pace.
    let ags;
    if (gradebook) {
      let seen = await lms.ask({ gradebook: true });
      const until = Date.now() + 120_000;
      while (seen.started < students && Date.now() < until) {
        await sleep(250);
        seen = await lms.ask({ gradebook: true });
      }
      ags = { ...seen, allStartedMsAfterStorm: Date.now() - stormWall - stormMs };
    }
    const stats = (key) => {
      const values = walks.map((w) => w[key]).filter((v) => Number.isFinite(v));
      return { p50Ms: round(percentile(values, 50), 2), p99Ms: round(percentile(values, 99), 2), maxMs: round(Math.max(...values), 2) };
    };
    return {
      preset, students, arrivalMs, stormMs,
      // The machine's 1-minute load average before and after the storm (a shared machine shows here).
      loadAverage: { before: loadBefore, after: round(loadavg()[0], 2) },
      login: stats("loginMs"), launch: stats("launchMs"), open: stats("openMs"),
      failed,
      signInCallsPerStudent: round(all / students, 3),
      signInCallsInStorm: inStorm,
      // The LMS emulator fills a small course to 150 members: the prepare then covers more learners than walk.
      ...(nrps ? { prepared: nrps.prepared, signInCallsPerPrepared: round(all / nrps.prepared, 3), nrpsPages: nrps.pages, preparePostMs: nrps.postMs, lms: await lms.ask({ counts: true }) } : {}),
      gradebook, ...(ags ? { ags } : {}),
    };
  } finally {
    agent.destroy();
    await host.close();
    await lms.close();
  }
}
