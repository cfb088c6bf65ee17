/**
 * A stand-in LMS for the LTI service tests (AGS, NRPS, service tokens): real HTTP on
 * 127.0.0.1 (port 0) that answers what a careless or hostile LMS would (the test sets
 * `handle`) and records what the tool sent. Its `/token` issues `tok-<n>`. The LMS
 * emulator never misbehaves this way, so the checks against it live here; so do an LMS
 * that hangs every score post (`hangingScores`) and one that throttles (`throttledScores`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, vi } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import type { Logger } from "../../src/core/logger.js";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { createServiceAccess, type ServiceAccess, type TokenShare } from "../../src/lti/lms/service-access.js";
import { inProcessFleet, type Fleet } from "../../src/fleet/fleet.js";
import { LmsGate } from "../../src/lti/gradebook/lms-gate.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { TOOL_KEY_PEM } from "./lti.js";

export const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
export const NRPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json";
export const ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#";

export interface Hit { method: string; path: string; query: URLSearchParams; authorization?: string; userAgent?: string; body: string }
export type Handler = (hit: Hit, res: ServerResponse) => void;

export interface FakeLms {
  url: string;
  hits: Hit[];
  /** Requests to `path` (without query), with `method`. */
  to(method: string, path: string): Hit[];
  /** What `/token` answers next; default a fresh token living an hour. */
  handle: Handler;
  close(): Promise<void>;
}

/** A stand-in LMS: `/token` issues `tok-<n>` (recording the form), every other request goes to `handle`. */
export async function fakeLms(): Promise<FakeLms> {
  const hits: Hit[] = [];
  let issued = 0;
  const lms: FakeLms = {
    url: "",
    hits,
    to: (method, path) => hits.filter((h) => h.method === method && h.path === path),
    handle: (_hit, res) => void res.writeHead(404).end(),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", lms.url);
      const hit: Hit = { method: req.method ?? "GET", path: u.pathname, query: u.searchParams, authorization: req.headers.authorization, userAgent: req.headers["user-agent"], body: Buffer.concat(chunks).toString("utf8") };
      hits.push(hit);
      if (hit.path === "/token") {
        issued += 1;
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ access_token: `tok-${issued}`, token_type: "Bearer", expires_in: 3600 }));
        return;
      }
      lms.handle(hit, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  lms.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return lms;
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  void res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(body === undefined ? undefined : JSON.stringify(body));

/** Score posts (`POST …/scores`) never answered, as an LMS that hangs; other requests 404. `open()`: posts still waiting; `most()`: the most at once. */
export function hangingScores(): { handle: Handler; open(): number; most(): number } {
  let open = 0;
  let most = 0;
  return {
    handle: (hit, res) => {
      if (!(hit.method === "POST" && hit.path.endsWith("/scores"))) return void res.writeHead(404).end();
      open += 1;
      most = Math.max(most, open);
      res.on("close", () => { open -= 1; });
    },
    open: () => open,
    most: () => most,
  };
}

/** The first `times` score posts get 429 with `Retry-After: retryAfter`, later ones 204; other requests 404. */
export function throttledScores(retryAfter: string, times = 1): Handler {
  let left = times;
  return (hit, res) => {
    if (!(hit.method === "POST" && hit.path.endsWith("/scores"))) return void res.writeHead(404).end();
    if (left-- > 0) return json(res, 429, { error: "slow down" }, { "Retry-After": retryAfter });
    json(res, 204, undefined);
  };
}

export function registrationOf(lms: FakeLms): Registration {
  const problems = new ProblemList();
  const lti = resolveLtiSettings({
    keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }],
    registrations: [{ issuer: lms.url, clientId: "client-9", authorizationUrl: `${lms.url}/auth`, jwksUrl: `${lms.url}/jwks`, tokenUrl: `${lms.url}/token`, deployments: ["dep-1"] }],
  }, problems)!;
  problems.throwIfAny("test");
  return lti.registrations.all()[0]!;
}

/** `act` with a second stand-in LMS (a host the tool's token must never reach), closed after it. */
export async function withOtherLms(act: (other: FakeLms) => Promise<void>): Promise<void> {
  const other = await fakeLms();
  try {
    await act(other);
  } finally {
    await other.close();
  }
}

/** A service access with the tool's test key and no token cached (with `shared`: an instance of a fleet sharing tokens). */
export function freshAccess(shared?: TokenShare): ServiceAccess {
  const problems = new ProblemList();
  const keys = resolveLtiSettings({ keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [] }, problems)!.keys;
  return createServiceAccess({ keys, logger: quiet, allowLoopbackHttp: true, ...(shared ? { shared } : {}) });
}

/** What the gradebook takes from the fleet (default: a fresh in-process one): the return limit, LMS pauses and breakers. */
export function gradebookFleet(fleet: Fleet = inProcessFleet()) {
  return { limiter: fleet.limiter, pauses: fleet.singleUse, breaker: fleet.breaker };
}

/** The outbox's per-LMS gate on `fleet` (default: a fresh in-process one). */
export function lmsGate(perLms = 2, fleet: Fleet = inProcessFleet()): LmsGate {
  return new LmsGate({ perLms, pauses: fleet.singleUse, breaker: fleet.breaker, logger: quiet });
}

/**
 * The stand-in LMS of a test file and its registration: started before the file's tests,
 * its record and answers reset (and real timers back) after each, closed after all.
 */
export function useFakeLms(): { lms: FakeLms; registration: Registration } {
  const ctx = {} as { lms: FakeLms; registration: Registration };
  beforeAll(async () => {
    ctx.lms = await fakeLms();
    ctx.registration = registrationOf(ctx.lms);
  });
  afterAll(async () => ctx.lms?.close());
  afterEach(() => {
    vi.useRealTimers();
    ctx.lms.hits.length = 0;
    ctx.lms.handle = (_hit, res) => void res.writeHead(404).end();
  });
  return ctx;
}
