/**
 * Middleware in front of the instructor API: who may call it, and the cookie-session
 * CSRF defence for calls that change state.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { sendProblem } from "../shared/problem.js";
import type { MaybePromise } from "./options.js";
import { userOf } from "../shared/user.js";

/** What the guards need: the `isInstructor` option (default: nobody) and the resolved `trustedOrigins`. */
export interface GuardSettings {
  isInstructor: (req: Request) => MaybePromise<boolean>;
  trustedOrigins: Set<string>;
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
    if (origin !== undefined && origin !== ownOrigin(req) && !settings.trustedOrigins.has(origin)) {
      sendProblem(res, { status: 403, code: "cross_site_request", title: "Cross-site request refused", detail: `Requests from ${origin} may not change data here. Add it to trustedOrigins if it is yours.` });
      return;
    }
    if (origin === undefined && req.get("sec-fetch-site") === "cross-site") {
      sendProblem(res, { status: 403, code: "cross_site_request", title: "Cross-site request refused", detail: "Cross-site requests may not change data here." });
      return;
    }
    const hasBody = req.method !== "DELETE" || Number(req.get("content-length") ?? 0) > 0 || req.get("transfer-encoding") !== undefined;
    if (hasBody && !req.is("application/json")) {
      sendProblem(res, { status: 415, code: "unsupported_media_type", title: "JSON required", detail: "Send the body as application/json." });
      return;
    }
    next();
  };
}

function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get("host") ?? ""}`;
}
