/**
 * One app instance of the fleet tests, run as its own process (`tsx instance.ts`): an
 * Express host whose "session" is the `x-test-user` header, the router at `/oral` in
 * fleet mode (Redis), the PostgreSQL store, the platform client on the fleet's budget.
 * Everything comes from the environment; it prints `listening <port>` and nothing else
 * (never the key). SIGTERM closes it cleanly; the tests SIGKILL it to play a crash.
 */
import express from "express";
import { createPlatformClient, oralAssessments, postgresStore } from "../../src/index.js";
import { redisFleet } from "../../src/fleet/index.js";
import { USERS, type TestUser } from "../support/users.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const number = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

const fleet = redisFleet({
  url: env("FLEET_REDIS_URL"), secret: env("FLEET_SECRET"), prefix: env("FLEET_PREFIX"),
  rateLimit: number("FLEET_RATE_LIMIT", 600), attemptLeaseMs: number("FLEET_ATTEMPT_LEASE_MS", 1_000),
  planLeaseMs: number("FLEET_PLAN_LEASE_MS", 1_000), commandTimeoutMs: 1_000,
});
const platform = createPlatformClient({
  apiKey: env("FLEET_API_KEY"), baseUrl: env("FLEET_EMULATOR_URL"), rateLimitPerMinute: number("FLEET_RATE_LIMIT", 600),
  rateBudget: fleet.rateBudget, timeoutMs: 5_000, maxRetries: 1,
});
const router = oralAssessments({
  platform, fleet, examHost: env("FLEET_EXAM_HOST"),
  store: postgresStore({ connectionString: env("FLEET_POSTGRES_URL"), schema: env("FLEET_SCHEMA") }),
  waitingPageAfterMs: number("FLEET_WAITING_PAGE_AFTER_MS", 300),
  isInstructor: (req) => (req.user as TestUser | undefined)?.role === "instructor",
});
const app = express();
app.use((req, _res, next) => {
  const name = req.get("x-test-user");
  if (name) (req as unknown as { user?: TestUser }).user = USERS.find((u) => u.username === name);
  next();
});
app.get("/instance", (_req, res) => void res.json({ pid: process.pid, shared: fleet.shared, instanceId: fleet.instanceId }));
app.use("/oral", router);
const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  void router.close().then(() => fleet.close()).then(() => platform.close()).finally(() => process.exit(0));
});
