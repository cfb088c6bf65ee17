/**
 * A real host app for router tests: express-session + passport-local, a JSON login
 * route, and the router mounted at `/oral`. Users are plain objects, as an LMS's would be.
 */
import express from "express";
import session from "express-session";
import passport from "passport";
import { Strategy as LocalStrategy } from "passport-local";
import { oralAssessments, type OralAssessmentsOptions, type OralAssessmentsRouter } from "../../src/index.js";
import { listen, type Listening } from "./http.js";
import { USERS, type TestUser } from "./users.js";

export { USERS, type TestUser } from "./users.js";

export interface SessionApp extends Listening {
  router: OralAssessmentsRouter;
}

/** `canLaunch` defaults to "any-signed-in-user" here: the router tests choose their own roster checks. */
export type SessionAppOptions = Omit<OralAssessmentsOptions, "canLaunch"> & Partial<Pick<OralAssessmentsOptions, "canLaunch">>;

/** `trustProxy`: Express's `trust proxy` (e.g. "loopback": a test's X-Forwarded-For names the client address). */
export async function startSessionApp(options: SessionAppOptions, mount = "/oral", trustProxy?: string): Promise<SessionApp> {
  const app = express();
  if (trustProxy !== undefined) app.set("trust proxy", trustProxy);
  const auth = new passport.Passport();
  auth.use(new LocalStrategy((username, password, done) => {
    const user = USERS.find((u) => u.username === username && u.password === password);
    done(null, user ?? false);
  }));
  auth.serializeUser((user, done) => done(null, (user as TestUser).id));
  auth.deserializeUser((id: string, done) => done(null, USERS.find((u) => u.id === id) ?? false));

  app.use(session({ secret: "test-session-secret", resave: false, saveUninitialized: false }));
  app.use(auth.initialize());
  app.use(auth.session());
  app.post("/login", express.json(), auth.authenticate("local"), (_req, res) => {
    res.status(204).end();
  });

  const router = oralAssessments({
    isInstructor: (req) => (req.user as TestUser | undefined)?.role === "instructor", canLaunch: "any-signed-in-user", ...options,
  });
  app.use(mount, router);
  app.use((_req, res) => {
    res.status(404).type("text/plain").send("host app 404");
  });
  const listening = await listen(app);
  return {
    ...listening,
    router,
    close: async () => {
      await listening.close();
      await router.close();
    },
  };
}
