/**
 * Who may use the unauthenticated `/__emulator/*` control endpoints. A loopback socket
 * address is not enough: a web page the developer visits can make the browser send a
 * cross-site `text/plain` POST to 127.0.0.1 (it changed the rate limits), and DNS
 * rebinding lets a page read answers (student names) under its own host name. So, besides
 * the address:
 * - the Host header must name the loopback (127.x, localhost, [::1]) and this port;
 * - a browser's cross-site marks (`Origin` of another site, `Sec-Fetch-Site` other than
 *   same-origin/none) are refused;
 * - a POST body must be declared JSON (browsers cannot send that cross-site without a
 *   CORS preflight, which the emulator never grants).
 */
import type { IncomingMessage } from "node:http";
import { isLoopback } from "./http.js";

export interface Refusal {
  status: 403 | 415;
  code: "forbidden" | "unsupported_media_type";
  message: string;
}

const LOOPBACK_NAME = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** `host[:port]` naming the loopback and (when a port is given) the port this socket listens on. */
function loopbackHost(value: string | undefined, port: number | undefined): boolean {
  if (!value) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value.trim());
  if (!m || !LOOPBACK_NAME.test(m[1]!)) return false;
  return m[2] === undefined || Number(m[2]) === port;
}

function sameLoopbackOrigin(origin: string, port: number | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file:) and garbage
  }
  return url.protocol === "http:" && loopbackHost(url.host, port ?? 80);
}

function declaresJson(req: IncomingMessage): boolean {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type);
}

function hasBody(req: IncomingMessage): boolean {
  const length = Number(req.headers["content-length"] ?? 0);
  return length > 0 || req.headers["transfer-encoding"] !== undefined;
}

/** Undefined when the request may go on; else why not. */
export function refuseControl(req: IncomingMessage, fromAnyAddress: boolean): Refusal | undefined {
  const port = req.socket.localPort;
  if (!fromAnyAddress) {
    if (!isLoopback(req.socket.remoteAddress)) {
      return { status: 403, code: "forbidden", message: "Control endpoints answer loopback clients only (see controlFromAnyAddress)." };
    }
    if (!loopbackHost(req.headers.host, port)) {
      return { status: 403, code: "forbidden", message: "Control endpoints need a loopback Host header (127.0.0.1, localhost or [::1] with this port)." };
    }
  }
  const origin = req.headers.origin;
  const site = req.headers["sec-fetch-site"];
  const sameOrigin = origin === undefined || (fromAnyAddress ? origin === `http://${req.headers.host}` : sameLoopbackOrigin(origin, port));
  if (!sameOrigin || (site !== undefined && site !== "same-origin" && site !== "none")) {
    return { status: 403, code: "forbidden", message: "Control endpoints refuse cross-site requests (Origin / Sec-Fetch-Site)." };
  }
  if (req.method === "POST" && (hasBody(req) || req.headers["content-type"] !== undefined) && !declaresJson(req)) {
    return { status: 415, code: "unsupported_media_type", message: "Control POST bodies must be JSON (Content-Type: application/json)." };
  }
  return undefined;
}
