/**
 * The platform's resources: one handler per endpoint of the platform's endpoint table
 * (`platform/endpoints.ts`), which gives each its method and path, and whose schemas the
 * handlers validate with: the emulator cannot drift from the client. Handlers return
 * `{ status, data }` or throw `ApiFailure`; `api.ts` does everything around them (auth,
 * rate limits, faults, envelopes, the environment's state).
 */
import { ENDPOINTS, type EndpointId } from "../platform/endpoints.js";
import { courseHandlers } from "./resources/courses.js";
import { examHandlersAll } from "./resources/exams.js";
import { studentHandlers } from "./resources/students.js";
import type { Handler } from "./resources/support.js";

export { ApiFailure, type ApiCall, type Outcome } from "./resources/support.js";

/** Every endpoint has its handler: a new entry in the table without one does not compile. */
const HANDLERS = { ...courseHandlers, ...examHandlersAll, ...studentHandlers } satisfies Record<EndpointId, Handler>;

interface Route {
  /** Path segments after `/api/v1/<env>`; `:` marks a parameter. */
  pattern: string[];
  handlers: Record<string, Handler>;
}

/** The table's endpoints grouped by path, in table order. */
const ROUTES: Route[] = [];
for (const [id, spec] of Object.entries(ENDPOINTS) as [EndpointId, (typeof ENDPOINTS)[EndpointId]][]) {
  const pattern = spec.path.split("/").slice(1).map((part) => (part.startsWith("{") ? ":" : part));
  let route = ROUTES.find((r) => r.pattern.join("/") === pattern.join("/"));
  if (!route) ROUTES.push((route = { pattern, handlers: {} }));
  route.handlers[spec.method] = HANDLERS[id];
}

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
    const handler = handlers[method];
    return handler ? { kind: "found", handler, params } : { kind: "method_not_allowed", allow: Object.keys(handlers) };
  }
  return { kind: "not_found" };
}
