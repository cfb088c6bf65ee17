/**
 * One cookie per browser for every LTI page: a random browser id, `eoa_lti_browser`,
 * `HttpOnly; Secure; SameSite=None; Partitioned` (CHIPS: inside an LMS's frame it is kept
 * for that LMS's site only), scoped to the mount's `/lti/` path. A login reuses the id the
 * browser already sends (so 157 logins from one page set one cookie, not 157, and never
 * push the host app's own cookies out of the browser's per-site cookie limit); the login's
 * state and a followed exam link record only a hash of it.
 *
 * The id is the secret that proves "this is the browser that logged in" (or "that followed
 * the link"): the cookie carries it, and Platform Storage carries it when the cookie does
 * not travel. It lives as long as the longest thing it binds, refreshed at each use.
 */
import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import { randomId } from "../../core/random-id.js";

export const BROWSER_COOKIE = "eoa_lti_browser";

const ID = /^[\w-]{32}$/;

/** A hash as the state records it (a browser id's, a re-login part's): SHA-256, the first 128 bits, base64url (22 characters). */
export function shortHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest().subarray(0, 16).toString("base64url");
}

/** The value of the cookie `name` in the request's `Cookie` header (no cookie parser needed). */
export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The browser id this request carries, if any (a malformed one counts as none). */
export function browserIdOf(req: Request): string | undefined {
  const value = cookieOf(req, BROWSER_COOKIE);
  return value !== undefined && ID.test(value) ? value : undefined;
}

/** This browser's id: the one it sent, else a new one; (re)sets the cookie for `maxAgeMs` either way. */
export function useBrowserId(req: Request, res: Response, maxAgeMs: number): string {
  const id = browserIdOf(req) ?? randomId(24);
  res.cookie(BROWSER_COOKIE, id, {
    httpOnly: true, secure: true, sameSite: "none", partitioned: true, maxAge: maxAgeMs, path: `${req.baseUrl}/lti/`,
  });
  return id;
}
