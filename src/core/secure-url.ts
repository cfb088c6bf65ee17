/**
 * "https, or http on loopback": the one rule for the URLs the package accepts in its
 * options and from an LMS (the LTI tool URL and an LMS's endpoints, Dynamic
 * Registration's, an `examHost`, the platform client's `baseUrl`). Plain http is only safe
 * when it never leaves the machine: a local LMS, emulator or app in development.
 */

/** The host names of the loopback interface, as `URL#hostname` spells them. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `localhost`, `127.0.0.1` or `[::1]` (a `URL`'s `hostname`). */
function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/**
 * The URL is `https:`, or `http:` to a loopback host. `loopbackHttp: false` accepts
 * `https:` only (e.g. Dynamic Registration without `allowLoopbackHttp`).
 */
export function isHttpsOrLoopback(url: URL, loopbackHttp = true): boolean {
  return url.protocol === "https:" || (loopbackHttp && url.protocol === "http:" && isLoopbackHost(url.hostname));
}
