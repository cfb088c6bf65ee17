/**
 * What the router adds to a launch, against two baselines measured in the same run
 * (the machine is noisy, so only same-run comparisons mean anything):
 *
 * - direct: POST /students/sign-in-token straight to the emulator (what any integration
 *   must pay at least);
 * - router: GET /oral/launch/:examId through the host app and the router (session user,
 *   store lookup, checks, the platform client, the 303);
 * - http-proxy-middleware: the same sign-in POST forwarded to the emulator by an Express
 *   app with http-proxy-middleware 3 adding the key (the naive proxy an integrator
 *   might write instead);
 * - minimal: an Express GET handler that POSTs to the emulator with bare node:http and
 *   answers the 303 — no session, store, checks or budget. Not a target: it shows what
 *   one extra HTTP hop costs on this machine, the floor under any router.
 *
 * The instructor API is measured the same way, with two calls an instructor's page makes:
 * - instructorGet: GET /oral/courses/:id through the router (guards, id check, client,
 *   record schema, JSON answer) vs GET /courses/:id direct vs http-proxy-middleware;
 * - instructorCreate: POST /oral/courses {name} through the router (guards, body parse,
 *   schema in the router and again in the client, record schema, store write, 201) vs
 *   the same POST direct vs http-proxy-middleware.
 *
 * - axios floor (GET course only, no target): one Express layer that gets the course
 *   with our transport (axios and our adapter), parses it, checks the record schema and
 *   answers it as JSON. No router can do less and still validate the answer with axios:
 *   when this floor is not below http-proxy-middleware, neither can the router be.
 *
 * Requests are sequential (one at a time, so we time work, not queueing), in an order
 * shuffled afresh every round (so no path always runs on a socket or cache another one
 * just warmed), after a warm-up. "Added" is the median over rounds of (that path − its
 * direct call) within the same round: paired, so the machine's slow drifts cancel out.
 * The plain medians of each path are reported too.
 */
import http from "node:http";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { get } from "./lib/browser.js";
import { cookieOf, startHost, studentOf } from "./lib/host.js";
import { median, round, shuffle } from "./lib/stats.js";
import { listenLocal } from "./lib/listen.js";
import { send } from "./lib/send.js";
import { startLeanCourseServer } from "./lib/lean-course.js";
import { Course, createTransport } from "./lib/internals.js";

export async function runOverhead(emulator, { rounds = 2_000, warmup = 300, log }) {
  await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
  await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  // One student launches thousands of times: the per-student launch limit is lifted (it still runs; its cost counts).
  const host = await startHost(emulator, { client: { rateLimitPerMinute: 1_000_000_000 }, router: { launchLimit: { burst: 1_000_000_000, refillMs: 1 } } });
  const proxyAgent = agent();
  const proxyApp = express();
  proxyApp.use("/platform", createProxyMiddleware({
    target: `${emulator.url}/api/v1/dev`,
    changeOrigin: true,
    agent: proxyAgent,
    headers: { Authorization: `Bearer ${emulator.testKey}` },
  }));
  const proxyServer = http.createServer(proxyApp);
  await new Promise((resolve) => proxyServer.listen(0, "127.0.0.1", resolve));
  const proxyBase = `http://127.0.0.1:${proxyServer.address().port}/platform`;
  const minimal = await startMinimal(emulator, proxyAgent);
  const floor = await startAxiosFloor(emulator);
  const api = `${emulator.url}/api/v1/dev`;
  const key = { authorization: `Bearer ${emulator.testKey}` };
  const instructorCookie = cookieOf("ins");

  try {
    const { classId, courseId, examId } = await host.seedExam("Overhead");
    const { email, firstName, lastName, orgInternalId } = studentOf(0);
    const body = JSON.stringify({ email, firstName, lastName, orgInternalId, classId, courseId });
    const courseBody = JSON.stringify({ name: "Overhead course" });
    // One keep-alive socket per path, as one browser (or one backend) would have.
    const paths = {
      direct: [200, (a) => send(a, "POST", `${api}/students/sign-in-token`, body, key)],
      router: [303, (a) => get(a, `${host.url}/oral/launch/${examId}`, cookieOf(0))],
      proxy: [200, (a) => send(a, "POST", `${proxyBase}/students/sign-in-token`, body, {})],
      minimal: [303, (a) => get(a, `${minimal.url}/launch/${examId}?body=${encodeURIComponent(body)}`)],
      getDirect: [200, (a) => send(a, "GET", `${api}/courses/${courseId}`, undefined, key)],
      getRouter: [200, (a) => send(a, "GET", `${host.url}/oral/courses/${courseId}`, undefined, { cookie: instructorCookie })],
      getProxy: [200, (a) => send(a, "GET", `${proxyBase}/courses/${courseId}`, undefined, {})],
      getFloor: [200, (a) => send(a, "GET", `${floor.url}/courses/${courseId}`, undefined, {})],
      createDirect: [201, (a) => send(a, "POST", `${api}/courses`, courseBody, key)],
      createRouter: [201, (a) => send(a, "POST", `${host.url}/oral/courses`, courseBody, { cookie: instructorCookie })],
      createProxy: [201, (a) => send(a, "POST", `${proxyBase}/courses`, courseBody, {})],
    };
    const names = Object.keys(paths);
    const agents = Object.fromEntries(names.map((name) => [name, agent()]));
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    log(`overhead: ${rounds} rounds of ${names.length} paths in a shuffled order (after ${warmup} warm-up)`);
    try {
      for (let i = 0; i < warmup + rounds; i++) {
        for (const name of shuffle(names)) {
          const [expected, run] = paths[name];
          const started = performance.now();
          const res = await run(agents[name]);
          const ms = performance.now() - started;
          if (res.status !== expected) throw new Error(`overhead ${name}: status ${res.status}`);
          if (i >= warmup) samples[name].push(ms);
        }
      }
    } finally {
      for (const a of Object.values(agents)) a.destroy();
    }
    const med = (name) => round(median(samples[name]));
    const added = (name, base) => round(median(samples[name].map((ms, i) => ms - samples[base][i])));
    return {
      rounds,
      order: "shuffled every round",
      directMedianMs: med("direct"),
      routerMedianMs: med("router"),
      proxyMedianMs: med("proxy"),
      minimalMedianMs: med("minimal"),
      routerVsDirect: { medianAddedMs: added("router", "direct") },
      httpProxyMiddleware: { medianAddedMs: added("proxy", "direct") },
      minimalForwarder: { medianAddedMs: added("minimal", "direct") },
      instructorGet: {
        directMedianMs: med("getDirect"),
        routerAddedMs: added("getRouter", "getDirect"),
        proxyAddedMs: added("getProxy", "getDirect"),
        axiosFloorAddedMs: added("getFloor", "getDirect"),
      },
      instructorCreate: {
        directMedianMs: med("createDirect"),
        routerAddedMs: added("createRouter", "createDirect"),
        proxyAddedMs: added("createProxy", "createDirect"),
      },
    };
  } finally {
    proxyAgent.destroy();
    await minimal.close();
    await floor.close();
    proxyServer.closeAllConnections();
    await new Promise((resolve) => proxyServer.close(resolve));
    await host.close();
  }
}

/** The floor: Express, one bare node:http POST upstream, a 303. */
async function startMinimal(emulator, upstream) {
  const app = express();
  app.get("/launch/:examId", (req, res) => {
    const body = String(req.query.body);
    const up = http.request(`${emulator.url}/api/v1/dev/students/sign-in-token`, {
      method: "POST",
      agent: upstream,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: `Bearer ${emulator.testKey}` },
    }, (answer) => {
      const chunks = [];
      answer.on("data", (c) => chunks.push(c));
      answer.on("end", () => {
        const token = JSON.parse(Buffer.concat(chunks).toString("utf8")).data.token;
        res.statusCode = 303;
        res.setHeader("Location", `${emulator.url}/exam/${req.params.examId}?__clerk_ticket=${encodeURIComponent(token)}`);
        res.end();
      });
    });
    up.end(body);
  });
  return listenLocal(app);
}

/** The axios floor (see the top): our transport, the JSON parse and the record schema in one Express layer. */
async function startAxiosFloor(emulator) {
  const transport = createTransport({ apiKey: emulator.testKey, maxSockets: 1, userAgent: "bench" });
  const api = `${emulator.url}/api/v1/dev`;
  const server = await startLeanCourseServer(async (id) => ({
    data: Course.parse(JSON.parse((await transport.send({ method: "GET", url: `${api}/courses/${id}`, timeoutMs: 5_000 })).text).data),
  }));
  return { url: server.url, close: async () => { await server.close(); transport.close(); } };
}

function agent() {
  return new http.Agent({ keepAlive: true, maxSockets: 1 });
}
