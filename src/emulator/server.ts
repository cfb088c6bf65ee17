/**
 * `startEmulator()`: a node:http server (no framework: benchmarks drive 100k requests
 * through it and should measure the client, not us) with these areas on one origin:
 *
 *   /api/v1/<env>/…   the platform API            → api.ts
 *   /exam/…           exam pages (custom domain)  → exam-page.ts
 *   /, /sign-in       the platform host's sign-in → platform-host.ts
 *   /__emulator/…     control endpoints           → control.ts
 *
 * Anything else is 404. Organizations given through `organizations` each get an exam host
 * too, an origin of its own serving their exam pages (exam-hosts.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { inspect } from "node:util";
import { toLogger } from "../core/logger.js";
import { redactKey } from "../core/redact.js";
import { isWholeNumber } from "../core/whole-number.js";
import { handleApi } from "./api.js";
import { createContext, findExam, type EmulatorContext } from "./context.js";
import { handleControl } from "./control.js";
import { closeServers, startExamHosts, type ExamHost } from "./exam-hosts.js";
import { handleExam } from "./exam-page.js";
import { handlePlatformHost } from "./platform-host.js";
import { listen, sendJson, sendText, splitTarget, urlHost, writable } from "./http.js";
import { resolveOptions } from "./options.js";
import { OrganizationHandle } from "./organization-handle.js";
import type { Emulator, EmulatorOptions, EmulatorOrganization, EmulatorStateSnapshot, FaultSpec, ReceivedRequest } from "./types.js";

/** The largest clock skew `setClockSkew` takes, either way. */
const WEEK_MS = 7 * 24 * 3600_000;

/**
 * The running emulator. Keys live in private fields behind getters, so printing or
 * serialising the object (a test's `console.log(emulator)`) shows them redacted only.
 */
class RunningEmulator implements Emulator {
  readonly #ctx: EmulatorContext;
  readonly #servers: Server[];
  #closing: Promise<void> | undefined;
  readonly organizations: readonly OrganizationHandle[];

  constructor(ctx: EmulatorContext, server: Server, readonly url: string, examHosts: readonly ExamHost[]) {
    this.#ctx = ctx;
    this.#servers = [server, ...examHosts.map((h) => h.server)];
    // An organization without an exam host of its own (the default one) has its pages here.
    const hostOf = (org: string) => examHosts.find((h) => h.org === org)?.url ?? url;
    this.organizations = Object.freeze(ctx.options.organizations.map((o) => new OrganizationHandle(o.id, o.name, o, hostOf(o.id))));
  }

  organization(id: string): EmulatorOrganization {
    const found = this.organizations.find((o) => o.id === id);
    if (!found) throw new RangeError(`No organization "${id}": this emulator has ${this.organizations.map((o) => o.id).join(", ")}.`);
    return found;
  }

  get examHost(): string { return this.organizations[0]!.examHost; }
  get testKey(): string { return this.#ctx.options.testKey; }
  get liveKey(): string { return this.#ctx.options.liveKey; }
  get ticketParam(): string { return this.#ctx.options.ticketParam; }
  get requests(): readonly ReceivedRequest[] { return this.#ctx.log.list(); }

  state(): EmulatorStateSnapshot {
    // Both environments, test data first; each record carries its `env` (and its `org`).
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
    ctx.clockSkewMs = 0;
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
      if (!isWholeNumber(value, name === "windowMs" ? 1 : 0)) {
        throw new RangeError(`Rate limit ${name} must be a whole number${name === "windowMs" ? " ≥ 1" : " ≥ 0"}.`);
      }
    }
    const { limits: current, limiter } = this.#ctx;
    if (limits.dev !== undefined) current.dev = limits.dev;
    if (limits.prod !== undefined) current.prod = limits.prod;
    if (limits.windowMs !== undefined) limiter.setWindowMs((current.windowMs = limits.windowMs));
  }

  setClockSkew(skewMs: number): void {
    if (!isWholeNumber(skewMs, -WEEK_MS, WEEK_MS)) {
      throw new RangeError("Clock skew must be a whole number of ms, at most a week either way.");
    }
    this.#ctx.clockSkewMs = skewMs;
  }

  examUrl(examId: string, token?: string): string {
    const exam = findExam(this.#ctx, examId);
    const roleplay = exam?.kind === "roleplay";
    // The exam's organization's exam host; an organization without one (`other`) has its
    // pages on the platform host, and an unknown exam gets the first organization's.
    const host = exam ? (this.organizations.find((o) => o.id === exam.org)?.examHost ?? this.url) : this.examHost;
    const base = `${host}/exam/${encodeURIComponent(examId)}${roleplay ? "/roleplay" : ""}`;
    return token === undefined ? base : `${base}?${encodeURIComponent(this.ticketParam)}=${encodeURIComponent(token)}`;
  }

  close(): Promise<void> {
    if (!this.#closing) {
      for (const timer of this.#ctx.timers) clearTimeout(timer);
      this.#ctx.timers.clear();
      this.#closing = closeServers(this.#servers);
    }
    return this.#closing;
  }

  toJSON(): Record<string, unknown> {
    return {
      url: this.url, testKey: redactKey(this.testKey), liveKey: redactKey(this.liveKey), ticketParam: this.ticketParam,
      organizations: this.organizations.map((o) => o.toJSON()),
    };
  }

  [inspect.custom](): string {
    return `Emulator ${inspect(this.toJSON())}`;
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const resolved = resolveOptions(options);
  const ctx = createContext(resolved, toLogger(options.logger));
  const server = createServer();

  // Exam hosts first: their handlers need only `ctx`, while the main server's handler is
  // attached right after it listens (below), with no await in between.
  const examHosts = await startExamHosts(ctx, resolved.host);
  let port: number;
  try {
    port = await listen(server, resolved.host, resolved.port);
  } catch (err) {
    await closeServers(examHosts.map((h) => h.server));
    throw err;
  }
  const emulator = new RunningEmulator(ctx, server, `http://${urlHost(resolved.host)}:${port}`, examHosts);

  // Attached after listen() resolved: no request event can arrive before this runs (the
  // resolution is a microtask, sockets are I/O), and control endpoints need `emulator`.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const { path, query } = splitTarget(req.url);
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
  for (const { org, url } of examHosts) ctx.logger.info({ org, url }, "emulator exam host listening");
  return emulator;
}
