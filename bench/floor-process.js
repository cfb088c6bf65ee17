/**
 * The least a launch can cost, in a process of its own like the router's host
 * (host-process.js), for `node bench/launch-cpu.js --floor`: bare `node:http` on both
 * sides and nothing else. `GET /oral/launch/:examId` reads the `bench_user` cookie, makes
 * the one sign-in call (`POST /students/sign-in-token`, keep-alive) and answers 303 to the
 * exam page with the token. No Express, no axios, no schema, no store, no rate budget,
 * no check of the exam, the student or the answer: every launch of a real tool does at
 * least this much, so its CPU per launch is a floor under any design that makes the
 * sign-in call when the student arrives.
 *
 * FLOOR_OPTIONS (JSON): `{ emulator: { url, testKey }, stack: [] }`; `stack` may name
 * "express" (the launch as a route of an Express router mounted at /oral in an Express
 * app, as the package is mounted) and "axios" (the sign-in call through an axios instance
 * on the same keep-alive agent): the floor of a launch with those dependencies. Speaks host-process.js's IPC:
 * `{ seed }` → `{ examId }` (a course, class and exam made straight on the emulator);
 * `{ loop: "start" | "stop" }` → `{ cpuMs, cpuSystemMs, launchRequests }` since "start".
 */
import http from "node:http";
import axios from "axios";
import express from "express";

const { emulator, stack = [] } = JSON.parse(process.env.FLOOR_OPTIONS);
const api = new URL(`${emulator.url}/api/v1/dev`);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const classOf = new Map();
let requests = 0;

const viaAxios = axios.create({ baseURL: api.href, httpAgent: agent, headers: { authorization: `Bearer ${emulator.testKey}` } });

/** One JSON POST to the emulator: the parsed answer's `data`. */
function post(path, body) {
  if (stack.includes("axios")) return viaAxios.post(`.${path}`, body).then((r) => r.data.data);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent, host: api.hostname, port: api.port, method: "POST", path: `${api.pathname}${path}`,
      headers: { authorization: `Bearer ${emulator.testKey}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
    }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        if (res.statusCode >= 300) reject(new Error(`${path}: ${res.statusCode}`));
        else resolve(JSON.parse(Buffer.concat(chunks).toString()).data);
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** The launch: `examId` from the path, the student from the cookie, one call, a 303. */
function launch(req, res, examId) {
  requests += 1;
  const user = /(?:^|;\s*)bench_user=(\w+)/.exec(req.headers.cookie ?? "");
  const classId = examId && classOf.get(examId);
  if (!classId || !user) {
    res.writeHead(404).end();
    return;
  }
  const id = user[1];
  post("/students/sign-in-token", { email: `${id}@bench.example`, firstName: "Student", lastName: `No${id}`, orgInternalId: id, classId }).then(
    ({ token }) => res.writeHead(303, { location: `${emulator.url}/exam/${examId}?ticket=${encodeURIComponent(token)}` }).end(),
    () => res.writeHead(502).end(),
  );
}

let handler = (req, res) => launch(req, res, /^\/oral\/launch\/([\w-]+)$/.exec(req.url ?? "")?.[1]);
if (stack.includes("express")) {
  const app = express();
  const router = express.Router();
  router.get("/launch/:examId", (req, res) => launch(req, res, req.params.examId));
  app.use("/oral", router);
  handler = app;
}
const server = http.createServer(handler);
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));

let cpuAtStart;
let requestsAtStart = 0;
process.on("message", async ({ id, seed, loop }) => {
  try {
    if (seed !== undefined) {
      const course = await post("/courses", { name: seed });
      const cls = await post(`/courses/${course._id}/classes`, {
        name: seed, classMode: "online", startDate: new Date().toISOString(), endDate: new Date(Date.now() + 86_400_000).toISOString(),
      });
      const exam = await post("/oral-assessments", { name: seed, classId: cls._id, duration: 600, examType: "Generic", questions: [{ id: "q1", text: "Why?" }] });
      classOf.set(exam._id, cls._id);
      process.send({ id, result: { examId: exam._id } });
    } else if (loop === "start") {
      cpuAtStart = process.cpuUsage();
      requestsAtStart = requests;
      process.send({ id, result: true });
    } else if (loop === "stop") {
      const cpu = process.cpuUsage(cpuAtStart);
      process.send({ id, result: { cpuMs: (cpu.user + cpu.system) / 1000, cpuSystemMs: cpu.system / 1000, launchRequests: requests - requestsAtStart } });
    }
  } catch (error) {
    process.send({ id, error: String(error) });
  }
});
process.on("disconnect", () => {
  server.closeAllConnections();
  agent.destroy();
  server.close(() => process.exit(0));
});
process.send({ url: `http://127.0.0.1:${server.address().port}` });
