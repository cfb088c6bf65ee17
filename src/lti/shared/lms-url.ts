/**
 * Which URLs an LMS may give the tool: https, or http on the loopback interface only (a
 * local LMS in development). Shared by the registrations option and Dynamic Registration,
 * which allows the loopback http only with `dynamicRegistration.allowLoopbackHttp`.
 *
 * The URLs the tool sends an LMS bearer token to (a launch's `lineitem`, `lineitems` and
 * `context_memberships_url`, a line item id an LMS answered, a `Link: next`) follow the
 * stricter rule of `isServiceUrl`: https, plain-http loopback only with `lti.allowLoopbackHttp`.
 */
import { isHttpsOrLoopback } from "../../core/secure-url.js";
import { isText } from "../../core/text.js";

export function isLmsUrl(value: unknown, loopbackHttp = true): value is string {
  if (!isText(value, 2048) || !URL.canParse(value)) return false;
  const u = new URL(value);
  return !u.username && !u.password && isHttpsOrLoopback(u, loopbackHttp);
}

/**
 * A URL the tool may send an LMS bearer token to: https with no user name or password;
 * plain http only to a loopback host and only with `loopbackHttp` (development). With
 * `origin`, also on that origin (a line item id taken from the answer of a URL there).
 */
export function isServiceUrl(value: unknown, loopbackHttp: boolean, origin?: string): value is string {
  return isLmsUrl(value, loopbackHttp) && (origin === undefined || new URL(value).origin === origin);
}
