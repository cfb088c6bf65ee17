/**
 * Dynamic Registration's limits on where the tool sends requests, one rule per test, over
 * real HTTP (src/lti/registration/dynamic-registration.ts, tool-configuration.ts, src/lti/shared/lms-fetch.ts):
 * `allowedHosts` wildcards match subdomains only (not the bare domain, not a look-alike
 * suffix); the registration POST goes only to the configuration URL's origin; and no
 * redirect is followed, of the configuration nor of the registration endpoint. Each case
 * has a server that would answer soundly if the rule were gone, and counts what it was asked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { startLtiBench, type LtiBench } from "../support/lti.js";

interface Lms { url: string; configReads: number; posts: number; close(): Promise<void> }

/**
 * A small LMS on 127.0.0.1: `/config` answers its OpenID configuration (the registration
 * endpoint from `registrationEndpoint(url)`, its own `/register` by default), a POST
 * answers a new client id; `route` may answer a path first (a redirect).
 */
async function startLms(opts: { registrationEndpoint?: (url: string) => string; route?: (req: IncomingMessage, res: ServerResponse) => boolean; clientId?: string } = {}): Promise<Lms> {
  const lms: Lms = { url: "", configReads: 0, posts: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    if (opts.route?.(req, res)) return;
    res.setHeader("Content-Type", "application/json");
    if (req.method === "GET" && req.url?.startsWith("/config")) {
      lms.configReads += 1;
      res.end(JSON.stringify({
        issuer: lms.url, authorization_endpoint: `${lms.url}/auth`, jwks_uri: `${lms.url}/jwks`, token_endpoint: `${lms.url}/token`,
        registration_endpoint: opts.registrationEndpoint?.(lms.url) ?? `${lms.url}/register`, id_token_signing_alg_values_supported: ["RS256"],
      }));
      return;
    }
    lms.posts += 1;
    req.resume();
    req.on("end", () => res.end(JSON.stringify({ client_id: opts.clientId ?? `client-${lms.posts}` })));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  lms.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  lms.close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
  return lms;
}

const register = (bench: LtiBench, configuration: string) =>
  fetch(`${bench.stack.app.url}/oral/lti/register?${new URLSearchParams({ openid_configuration: configuration, registration_token: "t" })}`);
const lastRefusal = (bench: LtiBench) => bench.stack.logger.lines.filter((l) => l.obj.event === "lti_register_refused").at(-1)?.obj;

describe("Dynamic Registration's allowedHosts wildcards", () => {
  let bench: LtiBench;
  beforeAll(async () => {
    // https hosts under the reserved .example domain: a host the list allows gets as far as
    // asking it (which fails: 502), a host it does not allow is refused before (403).
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 500, allowedHosts: ["*.school.example", "lms.other.example"] } }, { router: { store: memoryStore() } });
  });
  afterAll(async () => { await bench?.close(); });

  const reached = async (host: string) => {
    const res = await register(bench, `https://${host}/config`);
    await res.text();
    const refusal = lastRefusal(bench);
    return { status: res.status, check: refusal?.check, host: refusal?.host };
  };

  it.each(["canvas.school.example", "deep.canvas.school.example", "lms.other.example"])("lets %s through to be asked (*.school.example matches any subdomain)", async (host) => {
    expect(await reached(host)).toEqual({ status: 502, check: "openid_configuration_unreachable", host });
  });

  it.each([
    ["the bare domain of a wildcard", "school.example"],
    ["a look-alike suffix", "evilschool.example"],
    ["the allowed name inside another domain", "canvas.school.example.evil.example"],
    ["a subdomain of an exact host", "x.lms.other.example"],
    ["another host", "lms.elsewhere.example"],
  ])("refuses %s (%s) before asking it anything", async (_name, host) => {
    expect(await reached(host)).toEqual({ status: 403, check: "host_not_allowed", host });
  });
});

describe("Dynamic Registration's requests", () => {
  let bench: LtiBench;
  let store: OralStoreWithLti;
  const servers: Lms[] = [];
  const lms = async (opts: Parameters<typeof startLms>[0] = {}) => { const s = await startLms(opts); servers.push(s); return s; };
  beforeAll(async () => {
    store = memoryStore();
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 2_000, allowLoopbackHttp: true } }, { router: { store } });
  });
  afterAll(async () => {
    await bench?.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it("registers with a sound LMS (the control: each case below differs from it in one way)", async () => {
    const sound = await lms();
    const res = await register(bench, `${sound.url}/config`);
    expect(res.status, await res.text()).toBe(200);
    expect(sound.posts).toBe(1);
    expect((await store.listLtiRegistrations()).map((r) => r.issuer)).toContain(sound.url);
  });

  it("posts nothing to a registration endpoint on another origin than the configuration's", async () => {
    const foreign = await lms();
    const lying = await lms({ registrationEndpoint: () => `${foreign.url}/register` });
    const res = await register(bench, `${lying.url}/config`);
    expect(res.status).toBe(502);
    expect(lastRefusal(bench)).toMatchObject({ check: "registration_endpoint" });
    expect(foreign.posts + lying.posts).toBe(0);
    expect((await store.listLtiRegistrations()).map((r) => r.issuer)).not.toContain(lying.url);
  });

  it("does not follow a redirect of the configuration URL", async () => {
    const target = await lms();
    const redirecting = await lms({ route: (req, res) => req.url === "/moved" && (res.writeHead(302, { Location: `${target.url}/config` }).end(), true) });
    const res = await register(bench, `${redirecting.url}/moved`);
    expect(res.status).toBe(502);
    expect(lastRefusal(bench)).toMatchObject({ check: "openid_configuration_unreachable", why: "redirect", lmsStatus: 302 });
    expect(target.configReads + target.posts).toBe(0);
  });

  it("does not follow a redirect of the registration endpoint (a 307 would repeat the POST elsewhere)", async () => {
    const target = await lms();
    const redirecting = await lms({ route: (req, res) => req.method === "POST" && (req.resume(), res.writeHead(307, { Location: `${target.url}/register` }).end(), true) });
    const res = await register(bench, `${redirecting.url}/config`);
    expect(res.status).toBe(502);
    expect(lastRefusal(bench)).toMatchObject({ check: "registration_refused", why: "redirect", lmsStatus: 307 });
    expect(target.posts).toBe(0);
    expect((await store.listLtiRegistrations()).map((r) => r.issuer)).not.toContain(redirecting.url);
  });
});

describe("Dynamic Registration: what an operator reads, and the pending cap per host", () => {
  let bench: LtiBench;
  let store: OralStoreWithLti;
  const lmss: Lms[] = [];
  beforeAll(async () => {
    store = memoryStore();
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 5_000, allowLoopbackHttp: true, maxPending: 2 } }, { router: { store } });
  });
  afterAll(async () => { await bench?.close(); await Promise.all(lmss.map((l) => l.close())); });

  it("refuses a client_id with control characters, storing nothing", async () => {
    const lms = await startLms({ clientId: "42\r\u001b[2Kactive" });
    lmss.push(lms);
    const res = await register(bench, `${lms.url}/config`);
    expect(res.status).toBe(502);
    expect(lastRefusal(bench)).toMatchObject({ check: "registration_answer", fields: ["client_id"] });
    expect(await store.listLtiRegistrations()).toEqual([]);
  });

  it("counts pending registrations per host name: a third port of 127.0.0.1 finds the cap (2) reached", async () => {
    const ports = await Promise.all([0, 1, 2].map(() => startLms()));
    lmss.push(...ports);
    expect((await register(bench, `${ports[0]!.url}/config`)).status).toBe(200);
    expect((await register(bench, `${ports[1]!.url}/config`)).status).toBe(200);
    const third = await register(bench, `${ports[2]!.url}/config`);
    expect(third.status).toBe(503);
    expect(lastRefusal(bench)).toMatchObject({ check: "too_many_pending" });
    // Refused before the LMS was asked anything.
    expect(ports[2]!.configReads).toBe(0);
    expect((await store.listLtiRegistrations()).length).toBe(2);
  });
});
