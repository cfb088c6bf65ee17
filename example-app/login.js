/* global URLSearchParams */
/**
 * Signing in: cookie sessions, passport-local over the demo users, the login and logout
 * routes, the /continue page a login with `returnTo` ends on, and a launch link opened
 * signed out sent to the login page and back.
 */
import { randomBytes } from "node:crypto";
import express from "express";
import session from "express-session";
import passport from "passport";
import { Strategy as LocalStrategy } from "passport-local";
import { homeOf, requireUser, sameOriginOnly } from "./guards.js";
import { continuePage, pageHeaders, sendPage } from "./pages.js";
import { safeReturnTo } from "./return-to.js";

/**
 * Adds sessions, login and logout to `app`, before the plugin is mounted at `mountPath`
 * (its launch route needs to know who is signed in).
 * @param {import("express").Express} app
 * @param {{ users: object, sessionSecret?: string, secureCookies?: boolean|"auto", mountPath: string }} options
 */
export function addLogin(app, { users, sessionSecret, secureCookies, mountPath }) {
  // The in-memory session store is express-session's default: fine for one demo process,
  // not for production (use connect-redis, connect-pg-simple, …).
  app.use(session({
    name: "example.sid",
    secret: sessionSecret ?? randomBytes(32).toString("hex"),
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: "lax", secure: secureCookies ?? "auto", maxAge: 8 * 3600_000 },
  }));

  // Our own passport instance, so two apps in one process (tests) do not share strategies.
  const auth = new passport.Passport();
  auth.use(new LocalStrategy((username, password, done) => done(null, users.verify(username, password) ?? false)));
  auth.serializeUser((user, done) => done(null, user.id));
  auth.deserializeUser((id, done) => done(null, users.findById(id) ?? false));
  app.use(auth.initialize());
  app.use(auth.session());

  // A launch link opened signed out goes to the login page and back (returnTo), as the
  // router does with `loginUrl`: a visitor who is not signed in has no school yet, so the
  // router, asked first which organization the request is for, would answer 404.
  app.use(`${mountPath}/launch`, (req, res, next) => {
    if (req.user || (req.method !== "GET" && req.method !== "HEAD")) return next();
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.redirect(303, `/login?returnTo=${encodeURIComponent(req.originalUrl)}`);
  });

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
    pageHeaders(res);
    res.type("html").send(continuePage(safeReturnTo(req.query.to) ?? homeOf(req.user)));
  });
}
