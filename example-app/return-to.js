/**
 * Where a login may send the user on to (`returnTo`): only a path on this site, so the
 * login form is no open redirect.
 */

/** A path on this site: starts with one "/", no backslash (browsers read "/\\x" as "//x"), no control characters. */
function isLocalPath(value) {
  // eslint-disable-next-line no-control-regex
  return value.startsWith("/") && !value.startsWith("//") && !value.includes("\\") && !/[\u0000-\u001f\u007f]/.test(value);
}

/**
 * A `returnTo` is honoured only when it is a path on this site. `//evil.example` and
 * `/\evil.example` are protocol-relative to browsers, and anything absolute would make
 * the login form an open redirect. The check runs on the raw value *and* on the path the
 * URL parser makes of it, since that is what we send: "/.//evil.example" and
 * "/a/..//evil.example" normalise to "//evil.example".
 */
export function safeReturnTo(value) {
  if (typeof value !== "string" || value.length === 0 || value.length > 2000 || !isLocalPath(value)) return undefined;
  const base = "http://example-app.invalid";
  try {
    const url = new URL(value, base);
    const path = url.pathname + url.search + url.hash;
    return url.origin === base && isLocalPath(path) ? path : undefined;
  } catch {
    return undefined;
  }
}
