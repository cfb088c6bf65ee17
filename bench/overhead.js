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
 * Requests are sequential (one at a time, so we time work, not queueing), interleaved
 * round-robin with the order rotating, after a warm-up. "Added" is the median over rounds
 * of (that path − direct) within the same round: paired, so the machine's slow drifts
 * cancel out. The plain medians of each path are reported too.
 */
import http from "node:http";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";
import { get } from "./lib/browser.js";
import { cookieOf, startHost, studentOf } from "./lib/host.js";
import { median, round } from "./lib/stats.js";

export async function runOverhead(emulator, { rounds = 2_000, warmup = 300, log }) {
  await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
  await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  const host = await startHost(emulator, { client: { rateLimitPerMinute: 1_000_000_000 } });
  const agents = { direct: agent(), router: agent(), proxy: agent(), minimal: agent() };
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
  const proxyUrl = `http://127.0.0.1:${proxyServer.address().port}/platform/students/sign-in-token`;
  const minimal = await startMinimal(emulator, proxyAgent);

  try {
    const { classId, courseId, examId } = await host.seedExam("Overhead");
    const { email, firstName, lastName, orgInternalId } = studentOf(0);
    const body = JSON.stringify({ email, firstName, lastName, orgInternalId, classId, courseId });
    const paths = {
      direct: () => post(agents.direct, `${emulator.url}/api/v1/dev/students/sign-in-token`, body, { authorization: `Bearer ${emulator.testKey}` }),
      router: () => get(agents.router, `${host.url}/oral/launch/${examId}`, cookieOf(0)),
      proxy: () => post(agents.proxy, proxyUrl, body, {}),
      minimal: () => get(agents.minimal, `${minimal.url}/launch/${examId}?body=${encodeURIComponent(body)}`),
    };
    const expected = { direct: 200, router: 303, proxy: 200, minimal: 303 };
    const samples = { direct: [], router: [], proxy: [], minimal: [] };
    const names = Object.keys(paths);
    log(`overhead: ${rounds} rounds of direct / router / http-proxy-middleware / minimal forwarder (after ${warmup} warm-up)`);
    for (let i = 0; i < warmup + rounds; i++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length];
        const started = performance.now();
        const res = await paths[name]();
        const ms = performance.now() - started;
        if (res.status !== expected[name]) throw new Error(`overhead ${name}: status ${res.status}`);
        if (i >= warmup) samples[name].push(ms);
      }
    }
    const direct = median(samples.direct);
    const added = (name) => round(median(samples[name].map((ms, i) => ms - samples.direct[i])));
    return {
      rounds,
      directMedianMs: round(direct),
      routerMedianMs: round(median(samples.router)),
      proxyMedianMs: round(median(samples.proxy)),
      minimalMedianMs: round(median(samples.minimal)),
      routerVsDirect: { medianAddedMs: added("router") },
      httpProxyMiddleware: { medianAddedMs: added("proxy") },
      minimalForwarder: { medianAddedMs: added("minimal") },
    };
  } finally {
    for (const a of [...Object.values(agents), proxyAgent]) a.destroy();
    await minimal.close();
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
  const server = http.createServer(app);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

function agent() {
  return new http.Agent({ keepAlive: true, maxSockets: 1 });
}

function post(agent, url, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
    }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
