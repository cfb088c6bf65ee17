/**
 * `node bench/run.js --only breakdown` (after `npm run build`): where a router call's
 * time goes, stage by stage.
 *
 * Each HTTP stage is a path that does one thing more than the one before it, timed
 * sequentially in a shuffled order every round; a stage's cost is the median of the
 * paired per-round differences (same method as the overhead benchmark). The in-process
 * stages (schemas, JSON) are timed over many iterations without HTTP. The transport and
 * the schemas, which the package does not export, come from src/ (bench/lib/internals.js).
 */
import http from "node:http";
import axios from "axios";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { Course, CourseCreate, SignInToken, SignInTokenRequest, createNodeHttpAdapter, createTransport } from "./lib/internals.js";
import { get } from "./lib/browser.js";
import { cookieOf, startHost, studentOf } from "./lib/host.js";
import { median, round, shuffle } from "./lib/stats.js";
import { listenLocal } from "./lib/listen.js";
import { startLeanCourseServer } from "./lib/lean-course.js";
import { send } from "./lib/send.js";

export async function runBreakdown(emulator, { rounds = 1_500, warmup = 200, log }) {
  await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
  await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  // One student launches thousands of times: the per-student launch limit is lifted (it still runs; its cost counts).
  const host = await startHost(emulator, { client: { rateLimitPerMinute: 1_000_000_000 }, router: { launchLimit: { burst: 1_000_000_000, refillMs: 1 } } });
  const bare = await startBare();
  const transport = createTransport({ apiKey: emulator.testKey, maxSockets: 1, userAgent: "bench" });
  const leanTransport = createTransport({ apiKey: emulator.testKey, maxSockets: 1, userAgent: "bench" });
  const api = `${emulator.url}/api/v1/dev`;
  const lean = await startLeanCourseServer(async (id) => ({ data: Course.parse(JSON.parse((await leanTransport.send({ method: "GET", url: `${api}/courses/${id}`, timeoutMs: 5_000 })).text).data) }));
  const leanClient = await startLeanCourseServer((id) => host.platform.courses.retrieve(id));
  const proxy = await startProxy(emulator);
  const agents = [];
  const agent = () => {
    const a = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(a);
    return a;
  };
  const axiosWith = (extra) => axios.create({
    httpAgent: agent(), maxRedirects: 0, validateStatus: () => true, responseType: "text", transformResponse: [(d) => d], ...extra,
  });
  const axiosDefault = axiosWith({});
  const axiosOurs = axiosWith({ adapter: createNodeHttpAdapter(), transformRequest: [(d) => d] });
  try {
    const { classId, courseId, examId } = await host.seedExam("Breakdown");
    const { email, firstName, lastName, orgInternalId } = studentOf(0);
    const student = { email, firstName, lastName, orgInternalId };
    const signIn = { ...student, classId, courseId };
    const body = JSON.stringify(signIn);
    const url = `${emulator.url}/api/v1/dev/students/sign-in-token`;
    const headers = { authorization: `Bearer ${emulator.testKey}`, "content-type": "application/json" };
    const a = Object.fromEntries(["raw", "rawGet", "bare", "login", "launch", "getCourse", "lean", "leanClient", "proxyGet"].map((n) => [n, agent()]));
    const paths = {
      raw: () => send(a.raw, "POST", url, body, headers),
      rawGet: () => send(a.rawGet, "GET", `${emulator.url}/api/v1/dev/courses/${courseId}`, undefined, { authorization: headers.authorization }),
      axiosDefault: () => axiosDefault.post(url, body, { headers }),
      axiosOurs: () => axiosOurs.post(url, body, { headers }),
      transport: () => transport.send({ method: "POST", url, body, timeoutMs: 5_000, signal: new AbortController().signal }),
      request: () => host.platform.request("POST", "/students/sign-in-token", signIn, { priority: "launch" }),
      typed: () => host.platform.students.createSignInToken(signIn, { priority: "launch" }),
      bare: () => get(a.bare, `${bare.url}/x`),
      login: () => get(a.login, `${host.url}/oral/launch/${examId}`),
      retrieve: () => host.platform.courses.retrieve(courseId),
      getCourse: () => get(a.getCourse, `${host.url}/oral/courses/${courseId}`, cookieOf("ins")),
      launch: () => get(a.launch, `${host.url}/oral/launch/${examId}`, cookieOf(0)),
      lean: () => send(a.lean, "GET", `${lean.url}/courses/${courseId}`, undefined, {}),
      leanClient: () => send(a.leanClient, "GET", `${leanClient.url}/courses/${courseId}`, undefined, {}),
      proxyGet: () => send(a.proxyGet, "GET", `${proxy.url}/courses/${courseId}`, undefined, {}),
    };
    const names = Object.keys(paths);
    const samples = Object.fromEntries(names.map((n) => [n, []]));
    log(`breakdown: ${rounds} rounds of ${names.length} paths (after ${warmup} warm-up), then in-process stages`);
    for (let i = 0; i < warmup + rounds; i++) {
      for (const name of shuffle(names)) {
        const started = performance.now();
        await paths[name]();
        if (i >= warmup) samples[name].push(performance.now() - started);
      }
    }
    const diff = (x, y) => round(median(samples[x].map((ms, i) => ms - samples[y][i])));
    const signInAnswer = (await axiosOurs.post(url, body, { headers })).data;
    const course = (await host.platform.courses.retrieve(courseId)).data;
    const courseText = JSON.stringify({ data: course });
    const studentFields = SignInTokenRequest.pick({ email: true, firstName: true, lastName: true, orgInternalId: true });
    const micro = {
      "zod: student fields in (router, launch)": perOp(() => studentFields.safeParse(student)),
      "zod: sign-in body in (client, typed method)": perOp(() => SignInTokenRequest.safeParse(signIn)),
      "zod: sign-in answer out (client, typed method)": perOp(() => SignInToken.safeParse(JSON.parse(signInAnswer).data)),
      "zod: course body in (router or client, each)": perOp(() => CourseCreate.safeParse({ name: "Overhead course" })),
      "zod: course record out (client)": perOp(() => Course.safeParse(course)),
      "JSON: parse the course answer": perOp(() => JSON.parse(courseText)),
      "JSON: serialise the course answer": perOp(() => JSON.stringify({ data: course, meta: { requestId: "req_x" } })),
    };
    return {
      rounds,
      httpStagesMs: {
        "one HTTP POST to the platform (node:http, baseline)": round(median(samples.raw)),
        "axios, default http adapter (over baseline)": diff("axiosDefault", "raw"),
        "axios, our adapter (over baseline)": diff("axiosOurs", "raw"),
        "transport.send (over baseline)": diff("transport", "raw"),
        "client call: budget, deadline, JSON parse (over transport)": diff("request", "transport"),
        "client typed method: zod in and out (over request)": diff("typed", "request"),
        "client typed GET course: transport, call, zod out (over one node:http GET)": diff("retrieve", "rawGet"),
        "host Express app, one route, no work (a hop, absolute)": round(median(samples.bare)),
        "routing to the launch route, 401 page (over bare app)": diff("login", "bare"),
        "router's own work in a launch 303: routing, store, student check, queue, redirect (launch − bare app − client request)": round(median(samples.launch.map((ms, i) => ms - samples.bare[i] - samples.request[i]))),
        "router's own work in GET /courses/:id: routing, guards, id check, JSON answer (router − bare app − typed client call)": round(median(samples.getCourse.map((ms, i) => ms - samples.bare[i] - samples.retrieve[i]))),
        "floor with axios, GET course: one Express layer, transport.send, JSON parse, zod out, JSON answer (over one node:http GET)": diff("lean", "rawGet"),
        "the same layer with the whole client call (courses.retrieve) instead (over one node:http GET)": diff("leanClient", "rawGet"),
        "the router, GET course (over one node:http GET)": diff("getCourse", "rawGet"),
        "http-proxy-middleware, GET course (over one node:http GET)": diff("proxyGet", "rawGet"),
      },
      inProcessUs: Object.fromEntries(Object.entries(micro).map(([k, v]) => [k, round(v, 2)])),
    };
  } finally {
    for (const ag of agents) ag.destroy();
    transport.close();
    leanTransport.close();
    await lean.close();
    await leanClient.close();
    await proxy.close();
    await bare.close();
    await host.close();
  }
}

/** µs per call over a fixed number of iterations, after a warm-up. */
function perOp(fn, iterations = 20_000) {
  for (let i = 0; i < 2_000; i++) fn();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return ((performance.now() - started) * 1000) / iterations;
}

/** An Express app with one route answering at once: the cost of a hop with no work. */
async function startBare() {
  const app = express();
  app.get("/x", (_req, res) => res.end("ok"));
  return listenLocal(app);
}

/** http-proxy-middleware adding the key, as in the overhead benchmark. */
async function startProxy(emulator) {
  const app = express();
  app.use(createProxyMiddleware({
    target: `${emulator.url}/api/v1/dev`,
    changeOrigin: true,
    agent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    headers: { Authorization: `Bearer ${emulator.testKey}` },
  }));
  return listenLocal(app);
}
