/**
 * A request path back to its endpoint's path template (`/courses/abc/classes` →
 * `/courses/{courseId}/classes`): what metrics and spans name a call by, so their labels
 * stay few (one per endpoint, not one per record) and carry no id.
 */
import { ENDPOINTS } from "./endpoints.js";
import type { HttpMethod } from "./retry.js";

const TEMPLATES = [...new Map(Object.values(ENDPOINTS).map((e) => [`${e.method} ${e.path}`, e])).values()].map((e) => ({
  method: e.method as string,
  path: e.path,
  pattern: new RegExp(`^${e.path.replace(/\{\w+\}/g, "[^/]+")}$`),
}));

/** `other`: a `request()` path no endpoint of the table matches. */
export function endpointTemplate(method: HttpMethod, path: string): string {
  const cut = path.search(/[?#]/);
  const pathname = cut === -1 ? path : path.slice(0, cut);
  for (const t of TEMPLATES) if (t.method === method && t.pattern.test(pathname)) return t.path;
  return "other";
}
