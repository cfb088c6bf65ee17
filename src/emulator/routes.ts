/**
 * The platform's resources: one handler per method and path (in `resources/`), validated
 * with the same zod schemas the client and router use, so the emulator cannot drift from
 * them. Handlers return `{ status, data }` or throw `ApiFailure`; `api.ts` does everything
 * around them (auth, rate limits, faults, envelopes, the environment's state).
 */
import { courseRoutes } from "./resources/courses.js";
import { examRoutesAll } from "./resources/exams.js";
import { studentRoutes } from "./resources/students.js";
import type { Handler, Method, Route } from "./resources/support.js";

export { ApiFailure, type ApiCall, type Outcome } from "./resources/support.js";

const ROUTES: Route[] = [...courseRoutes, ...examRoutesAll, ...studentRoutes];

export type RouteMatch =
  | { kind: "found"; handler: Handler; params: string[] }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

/** Finds the handler for decoded path segments. Empty segments never match a parameter. */
export function matchRoute(method: string, segments: string[]): RouteMatch {
  for (const { pattern, handlers } of ROUTES) {
    if (pattern.length !== segments.length) continue;
    const params: string[] = [];
    const fits = pattern.every((part, i) => {
      const seg = segments[i]!;
      if (part !== ":") return part === seg;
      params.push(seg);
      return seg.length > 0;
    });
    if (!fits) continue;
    const handler = handlers[method as Method];
    return handler ? { kind: "found", handler, params } : { kind: "method_not_allowed", allow: Object.keys(handlers) };
  }
  return { kind: "not_found" };
}
