/**
 * `startEmulator()`: a node:http server (no framework: benchmarks drive 100k requests
 * through it and should measure the client, not us) with three areas on one origin:
 *
 *   /api/v1/<env>/…   the platform API            → api.ts
 *   /exam/…           exam pages (custom domain)  → exam-page.ts
 *   /, /sign-in       the platform host's sign-in → platform-host.ts
 *   /__emulator/…     control endpoints           → control.ts
 *
 * Anything else is 404.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { toLogger } from "../core/logger.js";
import { redactKey } from "../core/redact.js";
import { handleApi } from "./api.js";
import { createContext, findExam, type EmulatorContext } from "./context.js";
import { handleControl } from "./control.js";
import { handleExam } from "./exam-page.js";
import { handlePlatformHost } from "./platform-host.js";
import { sendJson, sendText, writable } from "./http.js";
import { resolveOptions } from "./options.js";
import type { Emulator, EmulatorOptions, EmulatorStateSnapshot, FaultSpec, ReceivedRequest } from "./types.js";

/** The host part of the URL callers should use: a wildcard bind is reached via loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The running emulator. Keys live in private fields behind getters, so printing or
 * serialising the object (a test's `console.log(emulator)`) shows them redacted only.
 */
class RunningEmulator implements Emulator {
  readonly #ctx: EmulatorContext;
  readonly #server: Server;
  #closing: Promise<void> | undefined;

  constructor(ctx: EmulatorContext, server: Server, readonly url: string) {
    this.#ctx = ctx;
    this.#server = server;
  }

  get examHost(): string { return this.url; }
  get testKey(): string { return this.#ctx.options.testKey; }
  get liveKey(): string { return this.#ctx.options.liveKey; }
  get ticketParam(): string { return this.#ctx.options.ticketParam; }
  get requests(): readonly ReceivedRequest[] { return this.#ctx.log.list(); }

  state(): EmulatorStateSnapshot {
    // Both environments, test data first; each record carries its `env`.
    const out: EmulatorStateSnapshot = { courses: [], classes: [], assessments: [], roleplays: [], students: [], tickets: this.#ctx.tickets.snapshot() };
    for (const env of ["dev", "prod"] as const) {
      const snap = this.#ctx.states[env].snapshot();
      for (const kind of ["courses", "classes", "assessments", "roleplays", "students"] as const) {
        out[kind].push(...snap[kind].map((record) => ({ ...record, env })));
      }
    }
    return out;
  }

  reset(): void {
    const ctx = this.#ctx;
    ctx.states.dev.clear();
    ctx.states.prod.clear();
    ctx.sessions.clear();
    ctx.tickets.clear();
    ctx.limiter.clear();
    ctx.faults.clear();
    ctx.latency.clear();
    ctx.log.clear();
    ctx.shapeCounter = 0;
  }

  fault(spec: FaultSpec): void {
    this.#ctx.faults.add(spec);
    this.#ctx.logger.info({ fault: spec.type, status: spec.status, count: spec.count ?? 1 }, "emulator fault added");
  }

  setLatency(latency: { fixedMs?: number; jitterMs?: number }): void {
    this.#ctx.latency.set(latency);
  }

  clearFaults(): void {
    this.#ctx.faults.clear();
    this.#ctx.latency.clear();
  }

  setRateLimits(limits: { dev?: number; prod?: number; windowMs?: number }): void {
    for (const [name, value] of Object.entries(limits ?? {})) {
      if (!["dev", "prod", "windowMs"].includes(name)) throw new RangeError(`Unknown rate limit "${name}": use dev, prod or windowMs.`);
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isInteger(value) || value < (name === "windowMs" ? 1 : 0)) {
        throw new RangeError(`Rate limit ${name} must be a whole number${name === "windowMs" ? " ≥ 1" : " ≥ 0"}.`);
      }
    }
    const { limits: current, limiter } = this.#ctx;
    if (limits.dev !== undefined) current.dev = limits.dev;
    if (limits.prod !== undefined) current.prod = limits.prod;
    if (limits.windowMs !== undefined) limiter.setWindowMs((current.windowMs = limits.windowMs));
  }

  examUrl(examId: string, token?: string): string {
    const roleplay = findExam(this.#ctx, examId)?.kind === "roleplay";
    const base = `${this.url}/exam/${encodeURIComponent(examId)}${roleplay ? "/roleplay" : ""}`;
    return token === undefined ? base : `${base}?${encodeURIComponent(this.ticketParam)}=${encodeURIComponent(token)}`;
  }

  close(): Promise<void> {
    this.#closing ??= new Promise((resolve) => {
      for (const timer of this.#ctx.timers) clearTimeout(timer);
      this.#ctx.timers.clear();
      this.#server.close(() => resolve());
      // Hung (fault) and keep-alive sockets would otherwise hold close() open.
      this.#server.closeAllConnections();
    });
    return this.#closing;
  }

  toJSON(): Record<string, unknown> {
    return { url: this.url, testKey: redactKey(this.testKey), liveKey: redactKey(this.liveKey), ticketParam: this.ticketParam };
  }

  [inspect.custom](): string {
    return `Emulator ${inspect(this.toJSON())}`;
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const resolved = resolveOptions(options);
  const ctx = createContext(resolved, toLogger(options.logger));
  const server = createServer();

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`The emulator could not listen on ${resolved.host}:${resolved.port} (${err.code ?? err.message}).`));
    };
    server.once("error", onError);
    server.listen(resolved.port, resolved.host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const emulator = new RunningEmulator(ctx, server, `http://${urlHost(resolved.host)}:${port}`);

  // Attached after listen() resolved: no request event can arrive before this runs (the
  // resolution is a microtask, sockets are I/O), and control endpoints need `emulator`.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    const path = q < 0 ? raw : raw.slice(0, q);
    const query = q < 0 ? "" : raw.slice(q + 1);
    let work: Promise<void> | undefined;
    if (path.startsWith("/api/")) work = handleApi(ctx, req, res, path, query);
    else if (path.startsWith("/exam/")) work = handleExam(ctx, req, res, path, query);
    else if (path === "/" || path === "/sign-in") work = handlePlatformHost(ctx, req, res, path, query);
    else if (path === "/__emulator" || path.startsWith("/__emulator/")) work = handleControl(ctx, emulator, req, res, path, query);
    else {
      req.resume();
      sendText(res, 404, "Not found\n", "text/plain; charset=utf-8", { "Cache-Control": "no-store" });
    }
    work?.catch((err: unknown) => {
      ctx.logger.error({ path, error: err instanceof Error ? err.message : String(err) }, "emulator request failed");
      if (writable(res)) sendJson(res, 500, { error: { code: "server_error", message: "The emulator failed to handle this request." } });
    });
  });
  ctx.logger.info({ url: emulator.url }, "emulator listening");
  return emulator;
}
