/**
 * Malformed percent-encoding in a route parameter (`/launch/%C0%AE`, `/courses/%`):
 * Express's `decodeURIComponent` of the parameter fails before any handler runs, and
 * passes a `URIError` with `status: 400` to the error handlers. That is the client's
 * mistake, not ours: a 400 naming the parameter (found from the route table), logged at
 * debug, never the 500 of an unexpected error.
 */
import type { Request } from "express";
import { ROUTES } from "../../api/routes.js";

/** Express 4 and 5 (router 2) both raise a URIError with status 400 ("Failed to decode param …"). */
export function isBadEncoding(error: unknown): boolean {
  return error instanceof URIError && (error as URIError & { status?: number }).status === 400;
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/**
 * The names of the parameters whose segments of `req.path` do not decode, from the route
 * table's path patterns (`/courses/{courseId}/classes` → `courseId`); `["path"]` when no
 * route of the table has the path's shape.
 */
export function undecodableParams(req: Request): string[] {
  const segments = req.path.split("/");
  for (const route of ROUTES) {
    if (route.method.toUpperCase() !== req.method && !(route.method === "get" && req.method === "HEAD")) continue;
    const pattern = route.path.split("/");
    if (pattern.length !== segments.length) continue;
    const names: string[] = [];
    const fits = pattern.every((part, i) => {
      const segment = segments[i] as string;
      const param = /^\{(\w+)\}$/.exec(part);
      if (!param) return part.toLowerCase() === segment.toLowerCase();
      if (!decodes(segment)) names.push(param[1] as string);
      return true;
    });
    if (fits && names.length > 0) return names;
  }
  return ["path"];
}
