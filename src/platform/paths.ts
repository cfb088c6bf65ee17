/**
 * Request paths. Ids come from callers (often from a browser's URL), so each one is
 * checked with the `RecordId` schema and percent-encoded as a single path segment: an id
 * like `../other` or `a/b` can never address another endpoint. Anything wrong is a
 * `PlatformInvalidRequestError`, thrown before a request exists.
 */
import { PlatformInvalidRequestError } from "./errors.js";
import { isPlainPath } from "./plain-path.js";
import { RecordId, isRecordId, issuesOf } from "./schemas.js";

export type Issue = { path: string; message: string };

/** Issues with one id, each under `name` (e.g. `courseId`); empty when the id is fine. */
export function idIssues(name: string, id: unknown): Issue[] {
  if (isRecordId(id)) return [];
  const parsed = RecordId.safeParse(id);
  return parsed.success ? [] : issuesOf(parsed.error).map((i) => ({ path: name, message: i.message }));
}

/**
 * Builds a path with every interpolated value checked and encoded as one segment:
 * ``pathOf`/courses/${courseId}/classes` ``. Throws `PlatformInvalidRequestError` listing
 * every bad id.
 */
export function pathOf(strings: TemplateStringsArray, ...ids: unknown[]): string {
  const issues = ids.flatMap((id, i) => idIssues(`id ${i + 1}`, id));
  if (issues.length > 0) throw invalidPath(issues);
  let out = strings[0] ?? "";
  ids.forEach((id, i) => {
    out += encodeURIComponent(id as string) + (strings[i + 1] ?? "");
  });
  return out;
}

// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f\\]/;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Checks a caller-built path for `request()`: relative to `/api/v1/<env>`, starting with
 * one `/`, no dot segments (raw or percent-encoded: URL parsers resolve both), no
 * whitespace, control characters, backslashes or fragment. A query string is allowed.
 */
export function requestPathIssues(path: unknown): Issue[] {
  if (typeof path !== "string" || path.length === 0) return [{ path: "path", message: "must be a non-empty string" }];
  const issues: Issue[] = [];
  const [pathname = ""] = path.split("?", 1);
  if (!path.startsWith("/") || path.startsWith("//")) {
    issues.push({ path: "path", message: "must start with a single / (it is relative to /api/v1/<env>)" });
  }
  if (UNSAFE_CHARS.test(path)) issues.push({ path: "path", message: "must not contain whitespace, control characters or backslashes" });
  if (path.includes("#")) issues.push({ path: "path", message: "must not contain a fragment (#)" });
  if (pathname.split("/").some((segment) => DOT_SEGMENT.test(segment))) {
    issues.push({ path: "path", message: "must not contain . or .. segments; encode ids with pathOf" });
  }
  return issues;
}

/**
 * Joins the API base and a checked path, and proves the result still lies under the base:
 * a last guard so no path can move the key to another host or another part of the API.
 */
export function resolveUrl(apiBase: string, path: string): string {
  const full = apiBase + path;
  // A plain path after the base: `new URL` would keep both as they are, so it stays under it.
  if (isPlainPath(path)) return full;
  const base = parsedBase(apiBase);
  const url = new URL(full);
  if (url.origin !== base.origin || !(url.pathname === base.pathname || url.pathname.startsWith(`${base.pathname}/`))) {
    throw invalidPath([{ path: "path", message: "resolves outside the platform API" }]);
  }
  return full;
}

/** The last API base parsed: a client resolves every path against the same one. */
let lastBase: { text: string; url: URL } | undefined;
function parsedBase(apiBase: string): URL {
  if (lastBase?.text !== apiBase) lastBase = { text: apiBase, url: new URL(apiBase) };
  return lastBase.url;
}

/** The path without its query string, for logs and errors (a query may carry data). */
export function displayPath(path: string): string {
  const cut = path.search(/[?#]/);
  return cut === -1 ? path : path.slice(0, cut);
}

function invalidPath(issues: Issue[]): PlatformInvalidRequestError {
  return new PlatformInvalidRequestError(
    `Invalid request path: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}. Nothing was sent.`,
    issues,
  );
}

