/**
 * A fleet on 127.0.0.1 for the tests and the bench: N router instances as separate
 * processes (tsx test/fleet-router/instance.ts) behind a tiny round-robin balancer
 * (node:http), one emulator, one API key, one Redis, one PostgreSQL schema.
 *
 * The balancer skips an instance that refuses connections (a health check would, after
 * a crash) and records which instance served each request, so tests can show that a
 * refresh landed elsewhere.
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export interface FleetInstance {
  port: number;
  child: ChildProcess;
  alive: boolean;
}

export interface Balancer {
  url: string;
  /** Index of the instance that served each request, in order. */
  served: { path: string; instance: number }[];
  close(): Promise<void>;
}

const INSTANCE = fileURLToPath(new URL("./instance.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

export async function startInstance(env: Record<string, string>): Promise<FleetInstance> {
  const child = spawn(TSX, [INSTANCE], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let errors = "";
  // Kept for a failure message only, never printed otherwise (it could name anything).
  child.stderr!.on("data", (d: Buffer) => { errors = (errors + d.toString()).slice(-2_000); });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`a fleet instance exited (${code}) before listening: ${errors.split("\n").filter((l) => /Error|error/.test(l)).slice(0, 3).join(" | ")}`)));
  });
  const instance: FleetInstance = { port, child, alive: true };
  child.once("exit", () => { instance.alive = false; });
  return instance;
}

export async function stopInstance(instance: FleetInstance, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = once(instance.child, "exit");
  instance.child.kill(signal);
  // A clean stop that takes too long is a kill.
  const timer = setTimeout(() => instance.child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

export async function startBalancer(instances: FleetInstance[]): Promise<Balancer> {
  let next = 0;
  const served: Balancer["served"] = [];
  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, tries: number): void => {
    const index = next++ % instances.length;
    const target = instances[index]!;
    if (!target.alive) {
      if (tries < instances.length) return forward(req, res, body, tries + 1);
    }
    const upstream = http.request({ host: "127.0.0.1", port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      served.push({ path: req.url ?? "", instance: index });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      // Refused: that instance is down; the next one answers. Cut mid-answer: a 502, as a real balancer.
      if (error.code === "ECONNREFUSED" && tries < instances.length && !res.headersSent) return forward(req, res, body, tries + 1);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end("bad gateway");
    });
    res.on("close", () => { if (!res.writableFinished) upstream.destroy(); });
    upstream.end(body);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), 1));
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
