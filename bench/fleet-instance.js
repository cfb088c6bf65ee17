/**
 * One app instance of the fleet benchmark, in its own process: the package as an
 * integrator uses it, in fleet mode (Redis), the router at `/oral`, the "session" the
 * `bench_user` cookie (lib/host.js). Exams come from FLEET_EXAMS (JSON examId → ids), so
 * every instance knows them without a shared database. Prints `listening <port>`.
 */
import http from "node:http";
import express from "express";
import { createPlatformClient, memoryStore, oralAssessments, redisFleet } from "express-oral-assessments";
import { IDLE_MS } from "./lib/balancer.js";
import { studentOf } from "./lib/host.js";

const env = process.env;
const limit = Number(env.FLEET_LIMIT);
const windowMs = Number(env.FLEET_WINDOW_MS);
const exams = JSON.parse(env.FLEET_EXAMS);
// FLEET_LOG=1: the package's warnings and errors on stderr (to see why a student failed).
const logger = env.FLEET_LOG ? { warn: (o, m) => console.error("warn", m, JSON.stringify(o)), error: (o, m) => console.error("error", m, JSON.stringify(o)) } : undefined;
const fleet = redisFleet({
  url: env.FLEET_REDIS_URL, secret: env.FLEET_SECRET, prefix: env.FLEET_PREFIX,
  rateLimitPerMinute: limit, rateWindowMs: windowMs, attemptLeaseMs: 2_000, commandTimeoutMs: 1_000, logger,
});
const platform = createPlatformClient({
  apiKey: env.FLEET_API_KEY, baseUrl: env.FLEET_EMULATOR_URL, rateLimitPerMinute: limit, rateWindowMs: windowMs,
  timeoutMs: 10_000, logger,
});
const instructor = { id: "ins", role: "instructor", email: "ins@bench.example", firstName: "Ines", lastName: "Instructor" };
const app = express();
app.use((req, _res, next) => {
  const m = /(?:^|;\s*)bench_user=(\w+)/.exec(req.headers.cookie ?? "");
  if (m) req.user = m[1] === "ins" ? instructor : studentOf(m[1]);
  next();
});
const router = oralAssessments({
  canLaunch: "any-signed-in-user", // the bench launches generated students on no roster
  platform, fleet, store: memoryStore(), examHost: env.FLEET_EMULATOR_URL, waitingPageAfterMs: 2_000,
  resolveClassId: (examId) => exams[examId],
  isInstructor: (req) => req.user?.role === "instructor", logger,
});
app.use("/oral", router);
const server = http.createServer(app);
// Longer than the balancer's idle sockets wait (lib/balancer.js): a socket closed here as the
// balancer reuses it would fail a student's request with a 502.
server.keepAliveTimeout = IDLE_MS;
server.listen(0, "127.0.0.1", () => process.stdout.write(`listening ${server.address().port}\n`));
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  router.close().then(() => fleet.close()).then(() => platform.close()).finally(() => process.exit(0));
});
