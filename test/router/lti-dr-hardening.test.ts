/**
 * Dynamic Registration under abuse (issue 28.5), over real HTTP: a small LMS on 127.0.0.1
 * (its OpenID configuration and registration endpoint) and servers that fail in each way.
 * Plain-http loopback URLs only with `allowLoopbackHttp`; one page and status whatever
 * made the configuration unreadable (no port-status oracle); a re-registration never
 * touches an active registration; 150 concurrent registrations keep at most `maxPending`
 * per host, in the memory store and in SQLite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { sqliteStore } from "../../src/store/sqlite.js";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { startLtiBench, type LtiBench } from "../support/lti.js";

interface FakeLms { url: string; posted: number; configReads: number; clientId: () => string; close(): Promise<void> }

/** An LMS that answers Dynamic Registration: `clientId()` names the client id it answers. */
async function fakeLms(clientId: () => string): Promise<FakeLms> {
  const lms: FakeLms = { url: "", posted: 0, configReads: 0, clientId, close: async () => undefined };
  const server = createServer((req, res) => {
    res.setHeader("Content-Type", "application/json");
    if (req.method === "GET" && req.url?.startsWith("/config")) {
      lms.configReads += 1;
      res.end(JSON.stringify({
        issuer: lms.url, authorization_endpoint: `${lms.url}/auth`, jwks_uri: `${lms.url}/jwks`, token_endpoint: `${lms.url}/token`,
        registration_endpoint: `${lms.url}/register`, id_token_signing_alg_values_supported: ["RS256"],
      }));
      return;
    }
    lms.posted += 1;
    req.resume();
    req.on("end", () => res.end(JSON.stringify({ client_id: lms.clientId() })));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  lms.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  lms.close = () => new Promise((r) => server.close(() => r()));
  return lms;
}

const register = (bench: LtiBench, configuration: string) =>
  fetch(`${bench.stack.app.url}/oral/lti/register?${new URLSearchParams({ openid_configuration: configuration, registration_token: "t" })}`);
const refusals = (bench: LtiBench) => bench.stack.logger.lines.filter((l) => l.obj.event === "lti_register_refused");
/** The page's words, without its nonce and the URL the request itself named. */
const wordsOf = (html: string, url: string) => html.replaceAll(new URL(url).origin, "<lms>").replace(/nonce-[^']+'|nonce="[^"]+"/g, "");

describe("Dynamic Registration's URLs", () => {
  let bench: LtiBench;
  let lms: FakeLms;
  beforeAll(async () => {
    lms = await fakeLms(() => "c-1");
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 500 } }, { router: { store: memoryStore() } });
  });
  afterAll(async () => { await bench.close(); await lms.close(); });

  it("refuses a plain-http loopback configuration without allowLoopbackHttp, asking it nothing", async () => {
    const res = await register(bench, `${lms.url}/config`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("an https URL");
    expect(lms.configReads).toBe(0);
    expect(refusals(bench).at(-1)?.obj.check).toBe("openid_configuration");
  });
});

describe("an unreadable configuration", () => {
  let bench: LtiBench;
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 500, allowLoopbackHttp: true } }, { router: { store: memoryStore() } });
  });
  afterAll(async () => {
    for (const c of sockets) c.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await bench.close();
  });
  const serve = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    const server = createServer(handler);
    server.on("connection", (c) => { sockets.add(c); });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/config`;
  };

  it("answers the same page and status for a closed port, a time-out, bad JSON, an HTTP error and an invalid configuration; the reason only in the log", async () => {
    const closed = await serve(() => undefined);
    await new Promise((r) => servers.pop()!.close(r));
    const cases = {
      closed,
      timeout: await serve(() => undefined),
      badJson: await serve((_q, s) => { s.setHeader("Content-Type", "application/json"); s.end("{not json"); }),
      notFound: await serve((_q, s) => { s.statusCode = 404; s.end("{}"); }),
      invalid: await serve((_q, s) => { s.setHeader("Content-Type", "application/json"); s.end(JSON.stringify({ issuer: "https://elsewhere.example" })); }),
    };
    const pages = new Map<string, string>();
    for (const [name, url] of Object.entries(cases)) {
      const res = await register(bench, url);
      expect(res.status, name).toBe(502);
      pages.set(name, wordsOf(await res.text(), url));
    }
    expect(new Set(pages.values()).size).toBe(1);
    const reasons = refusals(bench).slice(-5).map((l) => l.obj.why ?? l.obj.check);
    expect(reasons).toEqual(["unreachable", "timeout", "not_json", "status", "openid_configuration_invalid"]);
  });
});

describe("a re-registration", () => {
  let bench: LtiBench;
  let lms: FakeLms;
  let store: OralStoreWithLti;
  beforeAll(async () => {
    lms = await fakeLms(() => "same-client");
    store = memoryStore();
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { allowLoopbackHttp: true } }, { router: { store } });
  });
  afterAll(async () => { await bench.close(); await lms.close(); });

  it("never touches an active registration: 409, the active one and its deployments kept as they were", async () => {
    const active = {
      issuer: lms.url, clientId: "same-client", authorizationUrl: `${lms.url}/auth`, jwksUrl: `${lms.url}/old-jwks`,
      active: true, acceptNewDeployments: false, data: { set: "by hand" }, createdAt: "2026-01-01T00:00:00.000Z",
    };
    await store.putLtiRegistration(active);
    await store.putLtiDeployment(lms.url, "same-client", { id: "dep-1", organization: "north" });
    const res = await register(bench, `${lms.url}/config`);
    expect(res.status).toBe(409);
    expect(refusals(bench).at(-1)?.obj.check).toBe("registration_active");
    expect(await store.getLtiRegistration(lms.url, "same-client")).toEqual({ ...active, deployments: [{ id: "dep-1", organization: "north" }] });
  });
});

describe("the pending cap", () => {
  const dir = mkdtempSync(join(tmpdir(), "eoa-dr-cap-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, make] of [["memory", () => memoryStore()], ["SQLite", () => sqliteStore({ filename: join(dir, "cap.db") })]] as const) {
    it(`keeps at most 20 pending registrations of one host when 150 register at once (${name} store)`, async () => {
      let n = 0;
      const lms = await fakeLms(() => `client-${(n += 1)}`);
      const store = make();
      const bench = await startLtiBench({ registrations: [], dynamicRegistration: { allowLoopbackHttp: true, maxPending: 20 } }, { router: { store } });
      try {
        const answers = await Promise.all(Array.from({ length: 150 }, () => register(bench, `${lms.url}/config`).then(async (r) => { await r.text(); return r.status; })));
        const pending = (await store.listLtiRegistrations()).filter((r) => !r.active && r.issuer === lms.url);
        expect(pending.length).toBe(20);
        expect(answers.filter((s) => s === 200)).toHaveLength(20);
        expect(answers.filter((s) => s === 503)).toHaveLength(130);
      } finally {
        await bench.close();
        await lms.close();
      }
    });
  }
});
