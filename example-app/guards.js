/**
 * Who may reach what: each user's home page, the page and API guards, and the same-site
 * check of state-changing form posts.
 */
import { sendPage } from "./pages.js";

export const homeOf = (user) => (user?.role === "instructor" ? "/dashboard" : "/student");

/**
 * Refuses state-changing form posts from other sites (login CSRF: a hostile page could
 * otherwise sign a visitor into an account of the attacker's choosing). `Sec-Fetch-Site:
 * same-origin` is the browser's own word (no page can set it) and is enough: a page sent
 * with a strict referrer policy (`no-referrer`) has its forms posted with `Origin: null`,
 * same site or not. Otherwise `Origin` must be ours; a request with neither header comes
 * from no browser, so there is no victim session to abuse.
 */
export function sameOriginOnly(req, res, next) {
  const origin = req.get("origin");
  const site = req.get("sec-fetch-site");
  const ok = site === "same-origin" || (origin !== undefined
    ? origin === `${req.protocol}://${req.host}`
    : site === undefined || site === "none");
  if (ok) return next();
  // Behind a proxy, the public origin is known only when the proxy is trusted (trustProxy):
  // otherwise the Host and scheme seen here may be the proxy's, and every login is refused.
  res.status(403).type("text/plain").send("Refused: this form was sent from another site. (Behind a proxy? Set trustProxy / TRUST_PROXY.)");
}

/** Pages need a signed-in user; signed-out visitors go to the login page and come back. */
export function requireUser(req, res, next) {
  if (req.user) return next();
  res.redirect(303, `/login?returnTo=${encodeURIComponent(req.originalUrl)}`);
}

export function requireInstructorPage(req, res, next) {
  if (req.user?.role === "instructor") return next();
  res.status(403);
  sendPage(res, "forbidden.html");
}

/** The app's own JSON endpoints answer 401 instead of redirecting. */
export function requireUserApi(req, res, next) {
  if (req.user) return next();
  res.status(401).json({ error: "not signed in" });
}
