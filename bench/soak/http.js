/**
 * One HTTP request with node:http, path sent exactly as given: fetch (WHATWG URL) would
 * normalise `%2E` segments and re-encode bytes, hiding what a hostile client can send.
 */
import http from "node:http";

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Resolves `{ status, headers, text }`; rejects on a socket error or after `timeoutMs`. */
export function rawRequest(baseUrl, { method, path, headers = {}, body }, timeoutMs = 30_000) {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, method, path: `${url.pathname.replace(/\/$/, "")}${path}`, agent,
      headers: { ...headers, ...(body === undefined ? {} : { "content-length": Buffer.byteLength(body) }) },
      timeout: timeoutMs,
    }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}
