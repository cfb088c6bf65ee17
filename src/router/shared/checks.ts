/**
 * Small checks the settings of several features share. Each adds a problem (with its fix)
 * to the list instead of throwing, so one ConfigurationError lists every mistake.
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { isHttpsOrLoopback } from "../../core/secure-url.js";
import { readUrl } from "../../core/option-schema.js";

/** The one `canLaunch` value that is not a function: every signed-in user may launch, accepted on purpose. */
export const ANY_SIGNED_IN_USER = "any-signed-in-user";

/** An origin (`https://host[:port]`); http only for loopback hosts when `httpLoopbackOnly`. */
export function checkOrigin(value: unknown, option: string, problems: ProblemList, httpLoopbackOnly: boolean): string | undefined {
  const fix = `Set ${option} to an origin such as "https://exams.example.edu".`;
  const url = readUrl(value, option, problems, fix, "must be an origin string.", (text) => `"${text}" is not a URL.`);
  if (!url) return undefined;
  if (!isHttpsOrLoopback(url) && !(url.protocol === "http:" && !httpLoopbackOnly)) {
    problems.add(option, `must use https (http is allowed only for localhost), got "${url.protocol}".`, `Use "https://${url.host}".`);
  } else if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || url.username || url.password) {
    problems.add(option, "must be an origin only (no path, query, fragment or credentials).", `Use "${url.origin}".`);
  } else {
    return url.origin;
  }
  return undefined;
}

/**
 * A URL the router links or redirects a browser to: a path on this site (one leading "/",
 * no backslash, which browsers read as "//", no control characters) or an absolute
 * http(s) URL. Undefined (with the problem recorded) for anything else.
 */
export function checkSiteUrl(value: unknown, option: string, problems: ProblemList, example: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const clean = typeof value === "string" && !/[\u0000-\u001f\u007f]/.test(value);
  if (clean && value.startsWith("/") && !value.startsWith("//") && !value.includes("\\")) return value;
  if (clean && /^https?:\/\//i.test(value) && URL.canParse(value)) return value;
  problems.add(option, `must be a path on this site ("${example}") or an absolute http(s) URL.`, `Use e.g. ${option}: "${example}".`);
  return undefined;
}
