/**
 * Starts the example app: `npm start` (which builds the package first).
 *
 * By default everything runs in this one process: an embedded platform emulator on a free
 * port hosting two organizations, North High and South College (schools.js), each with its
 * own key and exam host, and the app on PORT (default 3000). To talk to the real platform
 * instead, set (for one school, North High: its users are served, South College's get 404s)
 *   ORAL_API_KEY    the organization's key (svc_live_… or svc_test_…)
 *   ORAL_BASE_URL   the platform's address, e.g. https://platform.example.com
 *   ORAL_EXAM_HOST  the custom exam domain (optional: unset → the platform's own host)
 *   ORAL_ENV        optional, "prod" or "dev"; must agree with the key's prefix
 * Other settings: PORT, HOST (default 127.0.0.1), SESSION_SECRET (default: random, so
 * sessions end at restart), DEMO_PASSWORD (one password for every demo user; default: a
 * random password per user, printed below), TRUST_PROXY (Express's "trust proxy" behind a
 * TLS-terminating proxy: "true", a hop count, or e.g. "loopback"; default: not trusted),
 * LOG_LEVEL (pino level, default "info").
 *
 * Beside the app, an LMS emulator (lms.js) on another free port, on `localhost` (another
 * site than the app's 127.0.0.1, as an LMS is): the app is its LTI tool, and its course's
 * deployment launches for North High. LMS_PORT fixes its port (default: any free port).
 *
 * Logs are pino's: one JSON line per event on stdout (pipe through `npx pino-pretty` to
 * read them as text). pino because it is the logger the plugin's `logger` option is
 * shaped after, and it writes each event as one line that log collectors can parse.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createPlatformClient, memoryStore, sqliteStore } from "express-oral-assessments";
import { startEmulator } from "express-oral-assessments/emulator";
import { createExampleApp } from "./app.js";
import { SCHOOLS } from "./schools.js";
import { createDemoUsers } from "./users.js";
import { startExampleLms } from "./lms.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const env = process.env;

/** The one place the key could reach output: scrub it from anything we print. */
function scrub(text) {
  const key = env.ORAL_API_KEY;
  return key && key.length >= 8 ? String(text).split(key).join("[redacted key]") : String(text);
}

function fail(title, error) {
  const detail = error?.name === "ConfigurationError" ? error.message : `${error?.name ?? "Error"}: ${error?.message ?? error}`;
  console.error(`\n✖ ${title}\n\n${scrub(detail)}\n`);
  process.exit(1);
}

/** The platform to talk to: the real one when configured, else an emulator in this process. */
async function connect() {
  const useRealPlatform = Boolean(env.ORAL_API_KEY || env.ORAL_BASE_URL || env.ORAL_EXAM_HOST);
  if (useRealPlatform) {
    const school = {
      ...SCHOOLS[0],
      apiKey: env.ORAL_API_KEY,
      baseUrl: env.ORAL_BASE_URL,
      examHost: env.ORAL_EXAM_HOST || undefined,
      ...(env.ORAL_ENV ? { env: env.ORAL_ENV } : {}),
    };
    // The router builds its clients on the first request; this one checks the settings
    // now, so a wrong key stops the start with every problem listed, not a first launch.
    const check = createPlatformClient({ apiKey: school.apiKey, baseUrl: school.baseUrl, ...(school.env ? { env: school.env } : {}) });
    const describe = `the platform at ${new URL(env.ORAL_BASE_URL).origin} for ${school.name} (key ${check.redactedKey}, ${check.env})`;
    check.close();
    // Records of what was created must outlive a restart, since the platform keeps them:
    // a SQLite file next to the app (gitignored by *.sqlite).
    const dataDir = path.join(HERE, "data");
    mkdirSync(dataDir, { recursive: true });
    return {
      schools: [school],
      store: sqliteStore({ filename: path.join(dataDir, "oral-assessments.sqlite") }),
      describe,
      close: async () => {},
    };
  }

  // One emulator standing in for both schools: each its own key, records and exam host.
  const emulator = await startEmulator({ port: 0, organizations: SCHOOLS });
  return {
    schools: SCHOOLS.map(({ id, name }) => {
      const org = emulator.organization(id);
      return { id, name, apiKey: org.testKey, baseUrl: emulator.url, examHost: org.examHost };
    }),
    // The emulator keeps its courses, classes and exams in memory and forgets them at exit,
    // so the router's records must not outlive it either: a SQLite file would remember
    // exams that the next emulator does not know (their launches would fail).
    store: memoryStore(),
    describe: `the embedded emulator at ${emulator.url}, for ${SCHOOLS.map((s) => s.name).join(" and ")} ` +
      "(in memory: everything is gone when you stop the app)",
    close: async () => emulator.close(),
  };
}

/** TRUST_PROXY as Express's "trust proxy" value: unset → false, "true"/"false", a hop count, or addresses/names. */
function trustProxySetting(value) {
  if (value === undefined || value === "" || value === "false") return false;
  if (value === "true") return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

async function main() {
  let connection;
  try {
    connection = await connect();
  } catch (error) {
    fail("The example app cannot start: the platform is not configured correctly.", error);
  }

  const lmsPort = env.LMS_PORT === undefined || env.LMS_PORT === "" ? 0 : Number(env.LMS_PORT);
  if (!Number.isInteger(lmsPort) || lmsPort < 0 || lmsPort > 65535) fail("The example app cannot start.", new Error(`LMS_PORT must be a port number, got "${env.LMS_PORT}".`));
  let lms;
  try {
    lms = await startExampleLms({ school: SCHOOLS[0].id, port: lmsPort });
  } catch (error) {
    fail("The example app cannot start its LMS emulator.", error.code === "EADDRINUSE" ? new Error(`Port ${lmsPort} is in use. Set LMS_PORT to another port.`) : error);
  }

  const users = createDemoUsers({ password: env.DEMO_PASSWORD || undefined });
  const logger = pino({ level: env.LOG_LEVEL || "info" });
  let app;
  try {
    app = createExampleApp({
      schools: connection.schools,
      store: connection.store,
      users,
      sessionSecret: env.SESSION_SECRET || undefined,
      trustProxy: trustProxySetting(env.TRUST_PROXY),
      logger,
      lms,
    });
  } catch (error) {
    fail("The example app cannot start: the oral-assessments router is not configured correctly.", error);
  }

  const port = env.PORT === undefined || env.PORT === "" ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail("The example app cannot start.", new Error(`PORT must be a port number, got "${env.PORT}".`));
  const host = env.HOST || "127.0.0.1";

  const server = app.listen(port, host);
  server.on("error", (error) => {
    fail("The example app cannot start.", error.code === "EADDRINUSE" ? new Error(`Port ${port} is in use. Set PORT to another port.`) : error);
  });
  server.on("listening", () => {
    const { port: actual } = server.address();
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${actual}`;
    lms.lms.registerTool(`${url}/oral`);
    const lines = [
      "",
      `Example app:  ${url}`,
      `Platform:     ${connection.describe}`,
      `LMS:          ${lms.lms.courseUrl()}   the course, as its instructor`,
      `              ${lms.lms.addExamPageUrl()}   Add an oral exam`,
      "              (an LMS emulator: this app is its LTI tool, and its course launches into North High)",
      "",
      "Each school sees only its own courses and exams: a student who opens the other school's launch link gets the 404 page.",
      `Demo logins (${env.DEMO_PASSWORD ? "password from DEMO_PASSWORD" : "random passwords, new at every start; set DEMO_PASSWORD to fix them"}):`,
      ...SCHOOLS.flatMap((school) => {
        const served = connection.schools.some((s) => s.id === school.id);
        return [
          `  ${school.name}${served ? "" : " (not on this platform: its users get the 404 page)"}`,
          ...users.all().filter((u) => u.school === school.id).map((u) => {
            const what = u.role === "instructor"
              ? `instructor → ${url}/dashboard`
              : u.outsider ? "student on no roster: launching shows the 403 page" : "student, enrolled in every class of the school";
            return `    ${u.username.padEnd(11)} ${users.passwordOf(u.username).padEnd(12)} ${what}`;
          }),
        ];
      }),
      "",
    ];
    console.log(lines.join("\n"));
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections?.();
    await app.locals.oral.close().catch(() => {});
    await connection.close().catch(() => {});
    await lms.lms.close().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => fail("The example app stopped.", error));
