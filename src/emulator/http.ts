/**
 * Small node:http helpers shared by the servers and the API, exam and control handlers:
 * listening, splitting a request target, reading a bounded body, and writing JSON/HTML
 * with an explicit Content-Length (no chunking, no framework:
 * the emulator sits under benchmarks that should measure the client, not the emulator).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type BodyResult =
  | { kind: "empty" }
  | { kind: "json"; value: unknown; text: string }
  | { kind: "invalid"; text: string }
  | { kind: "too_large" }
  | { kind: "aborted" };

/** Past this much we stop draining an oversized body and drop the connection. */
const DRAIN_CAP_FACTOR = 16;

/**
 * Reads and parses the body. An oversized body is drained (not stored) so that the 413 can
 * be delivered to a client still writing it; past 16× the limit the socket is destroyed.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"] ?? NaN);
  // No body announced (or an empty one): skip the listeners, the common case for GET.
  if (declared === 0 || (Number.isNaN(declared) && !req.headers["transfer-encoding"])) {
    req.resume();
    return Promise.resolve({ kind: "empty" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > maxBytes;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      if (tooLarge) {
        chunks.length = 0;
        if (size > maxBytes * DRAIN_CAP_FACTOR) req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (tooLarge) return resolve({ kind: "too_large" });
      if (size === 0) return resolve({ kind: "empty" });
      const text = Buffer.concat(chunks, size).toString("utf8");
      try {
        resolve({ kind: "json", value: JSON.parse(text) as unknown, text });
      } catch {
        resolve({ kind: "invalid", text });
      }
    });
    // A client that goes away mid-body: nothing to answer.
    req.on("error", () => resolve({ kind: "aborted" }));
    req.on("close", () => resolve({ kind: "aborted" })); // no-op after "end": a promise settles once
  });
}

export function newRequestId(): string {
  return `req_${randomUUID().replace(/-/g, "").slice(0, 20)}`;
}

/** True when the response can still be written (not ended, socket not gone). */
export function writable(res: ServerResponse): boolean {
  return !res.writableEnded && !res.destroyed && !res.socket?.destroyed;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (!writable(res)) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: OutgoingHttpHeaders = {}): void {
  if (!writable(res)) return;
  res.writeHead(status, headers);
  res.end();
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
  headers: OutgoingHttpHeaders = {},
): void {
  if (!writable(res)) return;
  res.writeHead(status, { ...headers, "Content-Type": contentType, "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

/** The vendor's error codes by status; anything else is `http_error`. */
export function codeForStatus(status: number): string {
  switch (status) {
    case 400: return "validation_error";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 413: return "payload_too_large";
    case 429: return "rate_limited";
    case 502: return "bad_gateway";
    case 503: return "service_unavailable";
    case 504: return "gateway_timeout";
    default: return status >= 500 ? "server_error" : "http_error";
  }
}

/** `/a/b%2Fc` → `["a", "b/c"]`: split first, then percent-decode each segment once. */
export function pathSegments(path: string): string[] | undefined {
  const raw = path.split("/").slice(1);
  try {
    return raw.map((s) => decodeURIComponent(s));
  } catch {
    return undefined; // malformed percent-encoding
  }
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

/** Listens on `host:port` (0: a free port); resolves with the port, rejects with a readable error. */
export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`The emulator could not listen on ${host}:${port} (${err.code ?? err.message}).`));
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** `/exam/x?a=1` → `{ path: "/exam/x", query: "a=1" }`. */
export function splitTarget(target: string | undefined): { path: string; query: string } {
  const raw = target ?? "/";
  const q = raw.indexOf("?");
  return q < 0 ? { path: raw, query: "" } : { path: raw.slice(0, q), query: raw.slice(q + 1) };
}

/** The host part of a URL for `host`: a wildcard bind is reached via loopback, IPv6 goes in brackets. */
export function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
