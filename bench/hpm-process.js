/**
 * The CPU baseline beside the router's: a minimal Express app whose one route forwards
 * each request through http-proxy-middleware to the emulator, adding the key (the naive
 * proxy an integrator might write instead of the router), in a process of its own like
 * the router's host (host-process.js), so `process.cpuUsage` counts only its work.
 * HPM_OPTIONS (JSON): `{ target, apiKey }`. Answers IPC messages: `{ cpu: "start" }`, then
 * `{ cpu: "stop" }` → `{ cpuMs, requests }` since "start".
 */
import http from "node:http";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";

const { target, apiKey } = JSON.parse(process.env.HPM_OPTIONS);
const app = express();
let requests = 0;
app.use((_req, _res, next) => {
  requests += 1;
  next();
});
app.use("/platform", createProxyMiddleware({
  target,
  changeOrigin: true,
  agent: new http.Agent({ keepAlive: true }),
  headers: { Authorization: `Bearer ${apiKey}` },
}));
const server = http.createServer(app);
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
let cpuAtStart;
let requestsAtStart = 0;
process.on("message", ({ id, cpu }) => {
  if (cpu === "start") {
    cpuAtStart = process.cpuUsage();
    requestsAtStart = requests;
    process.send({ id, result: true });
  } else if (cpu === "stop") {
    const used = process.cpuUsage(cpuAtStart);
    process.send({ id, result: { cpuMs: (used.user + used.system) / 1000, requests: requests - requestsAtStart } });
  }
});
process.on("disconnect", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
process.send({ url: `http://127.0.0.1:${server.address().port}` });
