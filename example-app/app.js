/**
 * The example app: an ordinary Express app with passport-local login and cookie
 * sessions, serving two schools (schools.js), each its own organization on the platform.
 * It mounts the plugin once at `/oral` with the options of the README's "Mount the
 * router", except that the platform comes per request: `organization` answers the
 * signed-in user's school (and a few options of its own, explained where it mounts it,
 * oral-router.js). `createExampleApp` only builds the app from its parts (login.js,
 * oral-router.js, app-api.js, pages.js); `server.js` starts it (tests start it on port 0).
 */
import express from "express";
import { ConfigurationError, memoryStore } from "express-oral-assessments";
import { addAppApi } from "./app-api.js";
import { homeOf, requireInstructorPage, requireUser } from "./guards.js";
import { addLogin } from "./login.js";
import { MOUNT_PATH, mountOralAssessments } from "./oral-router.js";
import { PUBLIC_DIR, sendPage } from "./pages.js";
import { createRoster } from "./roster.js";
import { createDemoUsers } from "./users.js";

export { MOUNT_PATH } from "./oral-router.js";
export { safeReturnTo } from "./return-to.js";

/**
 * The schools as the router's `organization` needs them: each with an id and a name
 * (schools.js), its own API key, the platform's address and, optionally, its exam host.
 * Checked at start, all problems at once, since the router sees an answer only per request.
 */
function checkSchools(schools) {
  const problems = [];
  const fix = "Pass schools: [{ id, name, apiKey, baseUrl, examHost? }, …], e.g. from startEmulator({ organizations }).";
  if (!Array.isArray(schools) || schools.length === 0) problems.push({ option: "schools", message: "must be a non-empty array.", fix });
  else {
    schools.forEach((school, i) => {
      for (const field of ["id", "name", "apiKey", "baseUrl"]) {
        if (typeof school?.[field] !== "string" || school[field] === "") problems.push({ option: `schools[${i}].${field}`, message: "is missing.", fix });
      }
    });
    const ids = schools.map((school) => school?.id);
    if (new Set(ids).size !== ids.length) problems.push({ option: "schools", message: "has two schools with the same id.", fix: "Give each school its own id: it scopes the school's records." });
  }
  if (problems.length > 0) throw new ConfigurationError("createExampleApp", problems);
  return new Map(schools.map((school) => [school.id, school]));
}

/**
 * @param {object} options
 * @param {Array<{ id: string, name: string, apiKey: string, baseUrl: string, examHost?: string, env?: "prod"|"dev" }>} options.schools
 *   each school's organization on the platform (its key never leaves the server); a user's `school` is one of these ids
 * @param {object} [options.organizationClient]  options of the clients the router builds per school (timeouts,
 *   retries, rateLimitPerMinute). Default: the router's defaults.
 * @param {import("express-oral-assessments").OralStore} [options.store]  default: memoryStore()
 * @param {ReturnType<typeof createDemoUsers>} [options.users]  default: demo users with random passwords
 * @param {ReturnType<typeof createRoster>} [options.roster]   default: createRoster(users)
 * @param {string} [options.sessionSecret]   default: random at every start (sessions end on restart)
 * @param {boolean|"auto"} [options.secureCookies]  mark the session cookie `Secure`: true always, false never.
 *   Default "auto": whenever the request came over https, directly or through a proxy trusted by `trustProxy`.
 * @param {boolean|number|string} [options.trustProxy]  Express's "trust proxy" setting, for an app behind a
 *   TLS-terminating proxy (then `X-Forwarded-Proto: https` makes cookies Secure). Default false.
 * @param {object} [options.logger]          pino (or pino-compatible) logger for the app and the plugin. Default: silent.
 * @param {{ school: string, lti: object }} [options.lms]  an LMS this app is an LTI tool of (lms.js): the router's
 *   `lti` option, and the school its one deployment launches for. Default: none (no LTI routes).
 */
export function createExampleApp(options) {
  const { logger } = options;
  const schools = checkSchools(options.schools);
  const store = options.store ?? memoryStore();
  const users = options.users ?? createDemoUsers();
  const roster = options.roster ?? createRoster(users);

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", options.trustProxy ?? false);
  app.use((_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    next();
  });

  /** The signed-in user's school; undefined when signed out or for a school this app does not serve. */
  const schoolOf = (user) => (user ? schools.get(user.school) : undefined);
  if (options.lms && !schools.has(options.lms.school)) {
    throw new ConfigurationError("createExampleApp", [{ option: "lms.school", message: `names no school of schools ("${options.lms.school}").`, fix: "Name the id of the school the LMS's deployment launches for." }]);
  }

  addLogin(app, { users, sessionSecret: options.sessionSecret, secureCookies: options.secureCookies, mountPath: MOUNT_PATH });
  const oral = mountOralAssessments(app, { ...options, schools, schoolOf, store, users, roster });

  app.use("/assets", express.static(PUBLIC_DIR, { index: false, maxAge: 0 }));
  app.get("/", (req, res) => res.redirect(303, req.user ? homeOf(req.user) : "/login"));
  app.get("/dashboard", requireUser, requireInstructorPage, (_req, res) => sendPage(res, "dashboard.html"));
  app.get("/student", requireUser, (_req, res) => sendPage(res, "student.html"));
  addAppApi(app, { oral, store, users, roster, schoolOf, mountPath: MOUNT_PATH });

  app.use((_req, res) => {
    res.status(404);
    sendPage(res, "not-found.html");
  });

  app.use((error, _req, res, _next) => {
    logger?.error?.({ event: "example_app_error", error: error?.message }, "unexpected error in the example app");
    if (res.headersSent) return;
    res.status(500).type("text/plain").send("Something went wrong.");
  });

  return app;
}
