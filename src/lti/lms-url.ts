/**
 * Which URLs an LMS may give the tool: https, or http on the loopback interface only (a
 * local LMS in development). Shared by the registrations option and Dynamic Registration,
 * which allows the loopback http only with `dynamicRegistration.allowLoopbackHttp`.
 */
import { isHttpsOrLoopback } from "../core/secure-url.js";
import { isText } from "../core/text.js";

export function isLmsUrl(value: unknown, loopbackHttp = true): value is string {
  if (!isText(value, 2048) || !URL.canParse(value)) return false;
  const u = new URL(value);
  return !u.username && !u.password && isHttpsOrLoopback(u, loopbackHttp);
}
