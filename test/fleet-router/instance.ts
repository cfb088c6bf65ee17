/**
 * One app instance of the fleet tests, run as its own process (`tsx instance.ts`): an
 * Express host whose "session" is the `x-test-user` header, the router at `/oral` in
 * fleet mode (Redis), the PostgreSQL store, the platform client on the fleet's budget.
 * Everything comes from the environment; it prints `listening <port>`, then the router's
 * and the fleet's warnings and errors as JSON lines (never the key). SIGTERM closes it
 * cleanly; the tests SIGKILL it to play a crash.
 *
 * `canLaunch`: with FLEET_ROSTER_TABLE (a PostgreSQL table of (class_id, user_id)), a
 * roster check, as an app would have; without it every signed-in user may launch.
 */
import express from "express";
import pg from "pg";
import { createPlatformClient, oralAssessments, postgresStore, type LaunchContext } from "../../src/index.js";
import { redisFleet } from "../../src/fleet/index.js";
import { USERS, type TestUser } from "../support/users.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const number = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

const line = (level: string) => (obj: Record<string, unknown>, msg?: string) => void process.stdout.write(`${JSON.stringify({ level, msg, ...obj })}\n`);
const logger = { warn: line("warn"), error: line("error") };

const fleet = redisFleet({
  url: env("FLEET_REDIS_URL"), secret: env("FLEET_SECRET"), prefix: env("FLEET_PREFIX"),
  rateLimitPerMinute: number("FLEET_RATE_LIMIT", 600), attemptLeaseMs: number("FLEET_ATTEMPT_LEASE_MS", 1_000),
  planLeaseMs: number("FLEET_PLAN_LEASE_MS", 1_000), commandTimeoutMs: 1_000, logger,
});
const rosterTable = process.env.FLEET_ROSTER_TABLE;
const roster = rosterTable ? new pg.Pool({ connectionString: env("FLEET_POSTGRES_URL"), max: 2 }) : undefined;
const onRoster = async (ctx: LaunchContext): Promise<boolean> =>
  ((await roster!.query(`SELECT 1 FROM ${rosterTable} WHERE class_id = $1 AND user_id = $2`, [ctx.classId, ctx.student.orgInternalId])).rowCount ?? 0) > 0;
const platform = createPlatformClient({
  apiKey: env("FLEET_API_KEY"), baseUrl: env("FLEET_EMULATOR_URL"), rateLimitPerMinute: number("FLEET_RATE_LIMIT", 600),
  timeoutMs: 5_000, maxRetries: 1,
});
const router = oralAssessments({
  platform, fleet, examHost: env("FLEET_EXAM_HOST"),
  store: postgresStore({ connectionString: env("FLEET_POSTGRES_URL"), schema: env("FLEET_SCHEMA") }),
  waitingPageAfterMs: number("FLEET_WAITING_PAGE_AFTER_MS", 300),
  isInstructor: (req) => (req.user as TestUser | undefined)?.role === "instructor",
  canLaunch: (_req, ctx) => (roster ? onRoster(ctx) : true),
  logger,
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
  void router.close().then(() => fleet.close()).then(() => platform.close()).then(() => roster?.end()).finally(() => process.exit(0));
});
