/**
 * One request on `agent`, the body (if any) JSON text: sized, and typed as JSON unless
 * `headers` says otherwise. Resolves with the status once the answer is read. The
 * benchmarks' baseline client (plain `node:http`, nothing measured of its own).
 */
import http from "node:http";

export function send(agent, method, url, body, headers) {
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers };
    const req = http.request(url, { method, agent, headers: sized }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
