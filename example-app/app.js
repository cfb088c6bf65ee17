/* global URLSearchParams */
/**
 * The example app: an ordinary Express app with passport-local login and cookie
 * sessions, serving two schools (schools.js), each its own organization on the platform.
 * It mounts the plugin once at `/oral` with the options of the README's "Mount the
 * router", except that the platform comes per request: `organization` answers the
 * signed-in user's school (and a few options of its own, explained where it mounts it).
 * `createExampleApp` only builds the app; `server.js` starts it (tests start it on port 0).
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import session from "express-session";
import passport from "passport";
import { Strategy as LocalStrategy } from "passport-local";
import { ConfigurationError, memoryStore, oralAssessments } from "express-oral-assessments";
import { createRoster } from "./roster.js";
import { createDemoUsers } from "./users.js";

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "public");

/** Where the plugin is mounted; the pages' scripts call `/oral/…`. */
export const MOUNT_PATH = "/oral";

/** Our own pages load scripts and styles from /assets only: no inline code at all. */
const PAGE_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
  "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'",
].join("; ");

/** A path on this site: starts with one "/", no backslash (browsers read "/\\x" as "//x"), no control characters. */
function isLocalPath(value) {
  // eslint-disable-next-line no-control-regex
  return value.startsWith("/") && !value.startsWith("//") && !value.includes("\\") && !/[\u0000-\u001f\u007f]/.test(value);
}

/**
 * A `returnTo` is honoured only when it is a path on this site. `//evil.example` and
 * `/\evil.example` are protocol-relative to browsers, and anything absolute would make
 * the login form an open redirect. The check runs on the raw value *and* on the path the
 * URL parser makes of it, since that is what we send: "/.//evil.example" and
 * "/a/..//evil.example" normalise to "//evil.example".
 */
export function safeReturnTo(value) {
  if (typeof value !== "string" || value.length === 0 || value.length > 2000 || !isLocalPath(value)) return undefined;
  const base = "http://example-app.invalid";
  try {
    const url = new URL(value, base);
    const path = url.pathname + url.search + url.hash;
    return url.origin === base && isLocalPath(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Escapes text for an HTML attribute or element. */
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page a login with `returnTo` ends on. The login form's redirect chain must stay on
 * this site: Chromium applies the login page's `form-action 'self'` to every redirect
 * after a form submission, so a chain that went on to a launch (and from there to the
 * exam host) was blocked, leaving the student on the login form with a wasted sign-in
 * token. From this page the browser navigates to `returnTo` afresh (continue.js, or the
 * link without JavaScript): a navigation that is not a form submission.
 */
const continuePage = (to) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Signed in · Oral assessments example</title>
  <link rel="stylesheet" href="/assets/styles.css">
  <script type="module" src="/assets/continue.js"></script>
</head>
<body>
  <main class="narrow">
    <div class="card">
      <h1>Signed in</h1>
      <p><a id="continue" href="${escapeHtml(to)}">Continue</a></p>
    </div>
  </main>
</body>
</html>
`;

/**
 * The plugin's pages (not enrolled, exam full, waiting, platform down…) in this app's
 * layout: our header with the student's name and "Log out", our stylesheet, and our own
 * CSP (the plugin sends its CSP only with its built-in pages). `page` is plain text and
 * links, escaped here; the plugin has already set the status, no-store, Retry-After and,
 * on the waiting page, a `Refresh` header, so no meta refresh and no script is needed.
 */
const layoutPage = (name, school, page) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(page.title)} · Oral assessments example</title>
  <link rel="stylesheet" href="/assets/styles.css">
</head>
<body>
  <header class="topbar">
    <div>
      ${school === undefined ? "" : `<div class="school" id="school">${escapeHtml(school)}</div>`}
      <h1>${escapeHtml(page.title)}</h1>
    </div>
    ${name === undefined ? "" : `<div class="who">
      <span>${escapeHtml(name)}</span>
      <form method="post" action="/logout"><button type="submit" class="link" id="logout">Log out</button></form>
    </div>`}
  </header>
  <main class="narrow">
    <section class="card" data-kind="${escapeHtml(page.kind)}">
      <p>${escapeHtml(page.message)}</p>
      ${page.links.map((l) => `<p><a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a></p>`).join("\n      ")}
    </section>
  </main>
</body>
</html>
`;

/**
 * Refuses state-changing form posts from other sites (login CSRF: a hostile page could
 * otherwise sign a visitor into an account of the attacker's choosing). Browsers send
 * `Origin` on every POST; `Sec-Fetch-Site` covers the few that do not. A request with
 * neither comes from no browser, so there is no victim session to abuse.
 */
function sameOriginOnly(req, res, next) {
  const origin = req.get("origin");
  const site = req.get("sec-fetch-site");
  const ok = origin !== undefined
    ? origin === `${req.protocol}://${req.host}`
    : site === undefined || site === "same-origin" || site === "none";
  if (ok) return next();
  // Behind a proxy, the public origin is known only when the proxy is trusted (trustProxy):
  // otherwise the Host and scheme seen here may be the proxy's, and every login is refused.
  res.status(403).type("text/plain").send("Refused: this form was sent from another site. (Behind a proxy? Set trustProxy / TRUST_PROXY.)");
}

const homeOf = (user) => (user?.role === "instructor" ? "/dashboard" : "/student");

/**
 * The plugin's page as this app shows it. An instructor who opens a student launch link
 * (the dashboard's "Open") is refused like any user on no roster, and the plugin's text
 * ("ask your instructor") is written for students: the instructor is told what the link
 * is for and how to try it instead.
 */
function pageFor(user, page) {
  if (page.kind !== "forbidden" || user?.role !== "instructor") return page;
  return {
    ...page,
    title: "This launch link is for students",
    message: "A student on the class roster who opens this link is signed in on the exam site and the exam starts. " +
      "Instructors are on no class roster, so it starts no exam for you. To try it, log out and log in as an enrolled student.",
  };
}

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

  // --- sessions and login -------------------------------------------------------------
  // The in-memory session store is express-session's default: fine for one demo process,
  // not for production (use connect-redis, connect-pg-simple, …).
  app.use(session({
    name: "example.sid",
    secret: options.sessionSecret ?? randomBytes(32).toString("hex"),
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: "lax", secure: options.secureCookies ?? "auto", maxAge: 8 * 3600_000 },
  }));

  // Our own passport instance, so two apps in one process (tests) do not share strategies.
  const auth = new passport.Passport();
  auth.use(new LocalStrategy((username, password, done) => done(null, users.verify(username, password) ?? false)));
  auth.serializeUser((user, done) => done(null, user.id));
  auth.deserializeUser((id, done) => done(null, users.findById(id) ?? false));
  app.use(auth.initialize());
  app.use(auth.session());

  /** The signed-in user's school; undefined when signed out or for a school this app does not serve. */
  const schoolOf = (user) => (user ? schools.get(user.school) : undefined);
  if (options.lms && !schools.has(options.lms.school)) {
    throw new ConfigurationError("createExampleApp", [{ option: "lms.school", message: `names no school of schools ("${options.lms.school}").`, fix: "Name the id of the school the LMS's deployment launches for." }]);
  }
  /**
   * The school of a request through the LMS (under `/oral/lti/`): the LMS's, whoever is
   * signed in to this app in the same browser, since the LMS's one deployment names it.
   * (The router still checks that an exam link is followed under the school it was made for.)
   */
  const schoolOfRequest = (req) => (options.lms && req.originalUrl.startsWith(`${MOUNT_PATH}/lti/`) ? schools.get(options.lms.school) : schoolOf(req.user));

  // A launch link opened signed out goes to the login page and back (returnTo), as the
  // router does with `loginUrl`: a visitor who is not signed in has no school yet, so the
  // router, asked first which organization the request is for, would answer 404.
  app.use(`${MOUNT_PATH}/launch`, (req, res, next) => {
    if (req.user || (req.method !== "GET" && req.method !== "HEAD")) return next();
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.redirect(303, `/login?returnTo=${encodeURIComponent(req.originalUrl)}`);
  });

  // --- the plugin ---------------------------------------------------------------------
  // Mounted as the README's "Mount the router" shows (the same isInstructor, canLaunch and
  // loginUrl; test/readme.test.ts keeps the two in step), with one router for both
  // schools: instead of one `platform` and `examHost`, `organization` answers the
  // signed-in user's school, and the router builds a client per school and keeps each
  // school's records, launches and caches apart. Besides those: the in-memory store (the
  // embedded emulator forgets everything at exit), the way home, the app's own page
  // layout, and the app's logger.
  const oral = oralAssessments({
    organization: (req) => {
      const school = schoolOfRequest(req);
      if (!school) return undefined;
      const { id, apiKey, baseUrl, examHost, env } = school;
      return { id, apiKey, baseUrl, ...(examHost ? { examHost } : {}), ...(env ? { env } : {}) };
    },
    isInstructor: (req) => req.user?.role === "instructor",
    canLaunch: (req, { classId, via }) => via === "lti" || (req.user !== undefined && roster.has(classId, req.user.id)),
    loginUrl: "/login",
    store,
    // The way back on every plugin page: "/" sends each user to their own home page.
    homeUrl: "/",
    renderPage: (req, res, page) => {
      res.setHeader("Content-Security-Policy", PAGE_CSP);
      res.send(layoutPage(req.user ? users.displayName(req.user) : undefined, schoolOf(req.user)?.name, pageFor(req.user, page)));
    },
    logger,
    ...(options.organizationClient ? { organizationClient: options.organizationClient } : {}),
    // The router as the LMS's LTI tool: its routes under /oral/lti/ (login, launch, key set).
    ...(options.lms ? { lti: options.lms.lti } : {}),
  });
  app.use(MOUNT_PATH, oral);
  app.locals.oral = oral;

  // --- pages --------------------------------------------------------------------------
  const sendPage = (res, file) => {
    res.setHeader("Content-Security-Policy", PAGE_CSP);
    res.setHeader("Referrer-Policy", "same-origin");
    res.setHeader("Cache-Control", "no-store");
    res.sendFile(path.join(PUBLIC_DIR, file));
  };

  /** Pages need a signed-in user; signed-out visitors go to the login page and come back. */
  const requireUser = (req, res, next) => {
    if (req.user) return next();
    res.redirect(303, `/login?returnTo=${encodeURIComponent(req.originalUrl)}`);
  };
  const requireInstructorPage = (req, res, next) => {
    if (req.user?.role === "instructor") return next();
    res.status(403);
    sendPage(res, "forbidden.html");
  };
  /** The app's own JSON endpoints answer 401 instead of redirecting. */
  const requireUserApi = (req, res, next) => {
    if (req.user) return next();
    res.status(401).json({ error: "not signed in" });
  };

  app.use("/assets", express.static(PUBLIC_DIR, { index: false, maxAge: 0 }));

  app.get("/", (req, res) => res.redirect(303, req.user ? homeOf(req.user) : "/login"));

  // A signed-in user goes home, never on to `returnTo`: after "log in from a launch link →
  // exam", Back returns to this page, and forwarding to the launch link again would spend
  // another sign-in token and one of the student's launches without their asking.
  app.get("/login", (req, res) => {
    if (req.user) return res.redirect(303, homeOf(req.user));
    sendPage(res, "login.html");
  });

  app.post("/login", sameOriginOnly, express.urlencoded({ extended: false, limit: "10kb" }), (req, res, next) => {
    const returnTo = safeReturnTo(req.body?.returnTo);
    auth.authenticate("local", (error, user) => {
      if (error) return next(error);
      if (!user) {
        const again = new URLSearchParams({ error: "1", ...(returnTo ? { returnTo } : {}) });
        return res.redirect(303, `/login?${again}`);
      }
      // passport 0.7 regenerates the session here (no session fixation).
      req.logIn(user, (loginError) => {
        if (loginError) return next(loginError);
        res.redirect(303, returnTo ? `/continue?${new URLSearchParams({ to: returnTo })}` : homeOf(user));
      });
    })(req, res, next);
  });

  // POST only: a GET logout could be triggered by any page embedding an <img>.
  app.post("/logout", sameOriginOnly, (req, res, next) => {
    req.logout((error) => {
      if (error) return next(error);
      res.redirect(303, "/login");
    });
  });

  app.get("/continue", requireUser, (req, res) => {
    res.setHeader("Content-Security-Policy", PAGE_CSP);
    res.setHeader("Referrer-Policy", "same-origin");
    res.setHeader("Cache-Control", "no-store");
    res.type("html").send(continuePage(safeReturnTo(req.query.to) ?? homeOf(req.user)));
  });

  app.get("/dashboard", requireUser, requireInstructorPage, (_req, res) => sendPage(res, "dashboard.html"));
  app.get("/student", requireUser, (_req, res) => sendPage(res, "student.html"));

  // --- the app's own JSON endpoints (the plugin's list routes are for instructors) -----
  app.get("/app/me", requireUserApi, (req, res) => {
    const u = req.user;
    const school = schoolOf(u);
    res.json({
      data: {
        id: u.id, username: u.username, role: u.role, name: users.displayName(u), email: u.email,
        school: school ? { id: school.id, name: school.name } : null,
      },
    });
  });

  app.get("/app/roster", requireUserApi, (req, res) => {
    if (req.user.role !== "instructor") return res.status(403).json({ error: "instructors only" });
    const { everyClass, noClass } = roster.summary(req.user.school);
    const brief = (u) => ({ id: u.id, username: u.username, name: users.displayName(u) });
    res.json({ data: { everyClass: everyClass.map(brief), noClass: noClass.map(brief) } });
  });

  /**
   * The signed-in student's exams: every assessment of every class whose roster has them,
   * from the router's records of the student's school (the store scopes them by
   * organization: the school's id comes first in every call).
   */
  app.get("/app/my-exams", requireUserApi, async (req, res, next) => {
    try {
      await oral.ready();
      const exams = [];
      const school = req.user.school;
      for (const course of await store.listCourses(school)) {
        for (const cls of await store.listClasses(school, course.id)) {
          if (!roster.has(cls.id, req.user.id)) continue;
          // Oral assessments and role-plays; each kind has its own launch route.
          for (const kind of ["oral", "roleplay"]) {
            for (const a of await store.listAssessments(school, cls.id, kind)) {
              const duration = kind === "oral" ? a.data.duration : a.data.roleplayDuration;
              exams.push({
                examId: a.id,
                kind,
                name: a.name,
                courseName: course.name,
                className: cls.name,
                duration: typeof duration === "number" ? duration : undefined,
                launchUrl: `${MOUNT_PATH}/launch/${kind === "roleplay" ? "roleplay/" : ""}${encodeURIComponent(a.id)}`,
              });
            }
          }
        }
      }
      res.setHeader("Cache-Control", "no-store");
      res.json({ data: exams });
    } catch (error) {
      next(error);
    }
  });

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
