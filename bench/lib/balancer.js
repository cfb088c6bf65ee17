/**
 * A tiny round-robin balancer (node:http) in front of a fleet's instances on 127.0.0.1,
 * for the fleet bench and the fleet test. It skips an instance that refuses connections
 * (a health check would, after a crash), answers 502 when an instance dies mid-answer
 * (as a real balancer does; a browser then retries), and records which instance served
 * each request, so a test can show that a refresh landed elsewhere.
 *
 * @param {{ port: number, alive: boolean }[]} instances
 */
import http from "node:http";

/** How long an idle keep-alive socket stays open, here and on the instances (fleet-instance.js). */
export const IDLE_MS = 60_000;

export async function startBalancer(instances) {
  let next = 0;
  /** @type {{ path: string, instance: number }[]} */
  const served = [];
  const forward = (req, res, body, tries) => {
    const index = next++ % instances.length;
    const target = instances[index];
    if (!target.alive && tries < instances.length) return forward(req, res, body, tries + 1);
    const upstream = http.request({ host: "127.0.0.1", port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      served.push({ path: req.url ?? "", instance: index });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on("error", () => res.destroy());
    });
    upstream.on("error", (error) => {
      if (error.code === "ECONNREFUSED" && tries < instances.length && !res.headersSent) return forward(req, res, body, tries + 1);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end("bad gateway");
    });
    res.on("close", () => { if (!res.writableFinished) upstream.destroy(); });
    upstream.end(body);
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), 1));
  });
  // Idle keep-alive sockets stay open longer than a student waits between two looks (a
  // waiting page's refresh, up to several seconds in an outage): at Node's default 5 s the
  // balancer closed a socket just as the browser reused it (ECONNRESET, a "failed" student
  // that a browser would have retried), which the soak's 5 s Redis outage ran into.
  server.keepAliveTimeout = IDLE_MS;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    served,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
