/**
 * `node bench/ab.js <distA> <distB> [rounds]`: a same-run before/after of two builds of
 * the router. Copy `dist/` of each build to a folder inside this checkout (so their
 * imports of express, axios and zod resolve to the same node_modules), e.g.
 * `cp -r dist bench/.ab/A`, change and rebuild, `cp -r dist bench/.ab/B`, then
 * `node bench/ab.js $PWD/bench/.ab/A $PWD/bench/.ab/B`.
 *
 * Both builds serve a host app side by side against one emulator process; GET
 * /oral/courses/:id, POST /oral/courses and a launch through each are timed in an order
 * shuffled every round, one request at a time, each path on its own keep-alive socket.
 * Prints, per path, each build's median and the median of the paired per-round
 * differences (B − A, ms): on a shared, noisy machine only such paired same-run
 * figures mean anything.
 */
import http from "node:http";
import express from "express";
import { get } from "./lib/browser.js";
import { startEmulatorProcess } from "./lib/emulator.js";
import { median, round, shuffle } from "./lib/stats.js";
import { send } from "./lib/send.js";

const [, , dirA, dirB, roundsArg] = process.argv;
if (!dirA || !dirB) {
  process.stderr.write("usage: node bench/ab.js <absolute distA> <absolute distB> [rounds]\n");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 1_200);
const warmup = 200;
const INSTRUCTOR = { id: "ins", role: "instructor", email: "ins@bench.example", firstName: "Ines", lastName: "Instructor" };
const studentOf = (id) => ({ id, email: `${id}@bench.example`, firstName: "Student", lastName: id, orgInternalId: id });

const emulator = await startEmulatorProcess();
await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });

async function startBuild(dir) {
  const m = await import(`${dir}/index.js`);
  const platform = m.createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url, rateLimitPerMinute: 1_000_000_000 });
  const app = express();
  app.use((req, _res, next) => {
    const id = /(?:^|;\s*)bench_user=(\w+)/.exec(req.headers.cookie ?? "")?.[1];
    if (id) req.user = id === "ins" ? INSTRUCTOR : studentOf(id);
    next();
  });
  // One student launches thousands of times: the per-student launch limit is lifted (it still runs; its cost counts).
  const oral = m.oralAssessments({
    canLaunch: "any-signed-in-user",
    platform, store: m.memoryStore(), examHost: emulator.url, isInstructor: (req) => req.user?.role === "instructor",
    launchLimit: { burst: 1_000_000_000, refillMs: 1 },
  });
  app.use("/oral", oral);
  const server = http.createServer(app);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const create = async (path, body) => {
    const res = await fetch(`${url}/oral${path}`, { method: "POST", headers: { "content-type": "application/json", cookie: "bench_user=ins" }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()).data;
  };
  const course = await create("/courses", { name: "AB" });
  const cls = await create(`/courses/${course._id}/classes`, { name: "AB", startDate: "2026-09-01", endDate: "2026-12-20" });
  const exam = await create("/oral-assessments", { name: "AB", classId: cls._id, questions: [{ text: "Why?" }] });
  return {
    url, courseId: course._id, examId: exam._id,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await oral.close();
      platform.close();
    },
  };
}

const builds = { A: await startBuild(dirA), B: await startBuild(dirB) };
const courseBody = JSON.stringify({ name: "Overhead course" });
const paths = {};
for (const [k, h] of Object.entries(builds)) {
  paths[`get${k}`] = [200, (a) => send(a, "GET", `${h.url}/oral/courses/${h.courseId}`, undefined, { cookie: "bench_user=ins" })];
  paths[`post${k}`] = [201, (a) => send(a, "POST", `${h.url}/oral/courses`, courseBody, { cookie: "bench_user=ins" })];
  paths[`launch${k}`] = [303, (a) => get(a, `${h.url}/oral/launch/${h.examId}`, "bench_user=s0")];
}
const names = Object.keys(paths);
const agents = Object.fromEntries(names.map((n) => [n, new http.Agent({ keepAlive: true, maxSockets: 1 })]));
const samples = Object.fromEntries(names.map((n) => [n, []]));
try {
  for (let i = 0; i < warmup + rounds; i++) {
    for (const name of shuffle(names)) {
      const [expected, run] = paths[name];
      const started = performance.now();
      const res = await run(agents[name]);
      if (res.status !== expected) throw new Error(`${name}: status ${res.status}`);
      if (i >= warmup) samples[name].push(performance.now() - started);
    }
  }
  const result = { rounds };
  for (const p of ["get", "post", "launch"]) {
    const a = samples[`${p}A`];
    const b = samples[`${p}B`];
    result[p] = { medianA: round(median(a)), medianB: round(median(b)), pairedBminusA: round(median(b.map((ms, i) => ms - a[i]))) };
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  for (const a of Object.values(agents)) a.destroy();
  await builds.A.close();
  await builds.B.close();
  await emulator.close();
}
