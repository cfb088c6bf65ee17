/**
 * Middleware in front of the instructor API: who may call it, and the cookie-session
 * CSRF defence for calls that change state.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { sendProblem } from "../shared/problem.js";
import type { MaybePromise } from "./options.js";
import { userOf } from "../shared/user.js";
import { declaresPlainJson } from "./body.js";

/** What the guards need: the `isInstructor` option (default: nobody), the resolved `trustedOrigins` and `publicOrigin`. */
export interface GuardSettings {
  isInstructor: (req: Request) => MaybePromise<boolean>;
  trustedOrigins: Set<string>;
  /** The site's public origin when the host app names it (`publicOrigin`); undefined → worked out per request. */
  publicOrigin: string | undefined;
}

/** Express 4 does not catch rejected promises from handlers; this forwards them to `next`. */
export function asyncHandler(fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>): RequestHandler {
  return (req, res, next) => {
    fn(req, res, next).catch(next);
  };
}

/** Both guards, in order: who may call, then where the call came from. */
export function instructorGuards(settings: GuardSettings): RequestHandler[] {
  return [requireInstructor(settings), csrfGuard(settings)];
}

/**
 * 401 with no user, 403 when `isInstructor` says no (the default says no to everyone).
 * A synchronous `isInstructor` is answered synchronously: no promise and no microtask
 * hops per request; a promise is awaited.
 */
export function requireInstructor(settings: GuardSettings): RequestHandler {
  const decide = (res: Response, next: NextFunction, isInstructor: boolean) => {
    if (isInstructor) return next();
    sendProblem(res, { status: 403, code: "forbidden", title: "Not an instructor", detail: "Only instructors may use this endpoint." });
  };
  return (req, res, next) => {
    if (!userOf(req)) {
      sendProblem(res, { status: 401, code: "unauthenticated", title: "Not signed in", detail: "Sign in to use the instructor API." });
      return;
    }
    let verdict: MaybePromise<boolean>;
    try {
      verdict = settings.isInstructor(req);
    } catch (error) {
      return next(error);
    }
    if (typeof (verdict as Promise<boolean> | undefined)?.then !== "function") return decide(res, next, verdict as boolean);
    Promise.resolve(verdict).then((ok) => decide(res, next, ok)).catch(next);
  };
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * With cookie sessions a browser attaches the cookie to any site's request, so a
 * state-changing call must prove it came from us: a cross-site `Origin` (or
 * `Sec-Fetch-Site: cross-site`) is refused, and bodies must be `application/json`, which
 * an HTML form cannot send without a CORS preflight.
 */
export function csrfGuard(settings: GuardSettings): RequestHandler {
  return (req, res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    const origin = req.get("origin");
    if (origin !== undefined && origin !== settings.publicOrigin && origin !== ownOrigin(req) && !settings.trustedOrigins.has(origin)) {
      sendProblem(res, { status: 403, code: "cross_site_request", title: "Cross-site request refused", detail: `Requests from ${origin} may not change data here. Add it to trustedOrigins if it is yours.` });
      return;
    }
    if (origin === undefined && req.get("sec-fetch-site") === "cross-site") {
      sendProblem(res, { status: 403, code: "cross_site_request", title: "Cross-site request refused", detail: "Cross-site requests may not change data here." });
      return;
    }
    const hasBody = req.method !== "DELETE" || Number(req.get("content-length") ?? 0) > 0 || req.get("transfer-encoding") !== undefined;
    if (hasBody && !declaresPlainJson(req) && !req.is("application/json")) {
      sendProblem(res, { status: 415, code: "unsupported_media_type", title: "JSON required", detail: "Send the body as application/json." });
      return;
    }
    next();
  };
}

/**
 * This site's origin as the browser saw it. Behind a TLS-terminating proxy the request
 * reaches us as http (and maybe with an internal Host): when the host app sets Express's
 * `trust proxy`, `req.protocol` honours `X-Forwarded-Proto` on Express 4 and 5 alike, and
 * the host comes from `X-Forwarded-Host` under the same trust rule. The host is read here
 * rather than from `req.host`/`req.hostname`, which differ between the majors (Express 4's
 * drop the port; Express 5's `req.host` keeps it): this is Express 5's `req.host`, on both.
 */
export function ownOrigin(req: Request): string {
  return `${req.protocol}://${forwardedHost(req) ?? req.get("host") ?? ""}`;
}

function forwardedHost(req: Request): string | undefined {
  const forwarded = req.get("x-forwarded-host");
  if (!forwarded) return undefined;
  const trust = req.app.get("trust proxy fn") as ((address: string | undefined, hop: number) => boolean) | undefined;
  if (!trust?.(req.socket.remoteAddress, 0)) return undefined;
  return forwarded.split(",")[0]?.trim() || undefined;
}
