/**
 * LTI Dynamic Registration (`GET /lti/register`) and registrations kept in the store, over
 * real HTTP with the LMS emulator: the LMS registers the tool, the stored registration
 * waits for activation, then launches with the new client id open the exam (the first
 * deployment id seen is recorded). Every refusal is a page and a log line, and stores
 * nothing. Runs on Express 4 and 5 (the express4 project).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { linkCourse, linkOf, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const refusals = (bench: LtiBench, event = "lti_register_refused") => bench.stack.logger.lines.filter((l) => l.obj.event === event).map((l) => l.obj.check);
const registerPath = (bench: LtiBench) => `${bench.stack.app.url}/oral/lti/register`;

/** The administrator's *Register by URL*: GET the tool's registration URL as the LMS opens it. */
async function register(bench: LtiBench, query?: Record<string, string>) {
  const url = new URL(query ? `${registerPath(bench)}?${new URLSearchParams(query)}` : bench.lms.dynamicRegistrationUrl(registerPath(bench)));
  return request(url.origin).get(url.pathname + url.search);
}

describe("LTI Dynamic Registration", () => {
  let bench: LtiBench;
  let store: OralStoreWithLti;
  beforeAll(async () => {
    store = memoryStore();
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 1000, allowLoopbackHttp: true } }, { router: { store } });
  });
  afterAll(async () => { await bench.close(); });

  it("registers with the LMS, stores it inactive, and launches with the new client id once activated", async () => {
    const answer = await register(bench);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("org.imsglobal.lti.close");
    expect(answer.headers["cache-control"]).toBe("no-store");
    const [registered] = bench.lms.toolRegistrations;
    expect(registered).toBeDefined();
    const clientId = registered!.clientId;
    expect(bench.lms.clientId).toBe(clientId);
    expect(answer.text).toContain(clientId);
    // What the tool asked for: its own URLs, both messages, and Canvas's public privacy level.
    const tool = registered!.request["https://purl.imsglobal.org/spec/lti-tool-configuration"] as Record<string, unknown>;
    expect(registered!.request).toMatchObject({ initiate_login_uri: `${bench.stack.app.url}/oral/lti/login`, redirect_uris: [`${bench.stack.app.url}/oral/lti/launch`], jwks_uri: `${bench.stack.app.url}/oral/lti/jwks.json` });
    expect((tool.messages as { type: string }[]).map((m) => m.type)).toEqual(["LtiResourceLinkRequest", "LtiDeepLinkingRequest"]);
    expect(tool["https://canvas.instructure.com/lti/privacy_level"]).toBe("public");
    expect(await store.getLtiRegistration(bench.lms.issuer, clientId)).toMatchObject({
      authorizationUrl: bench.lms.authorizationUrl, jwksUrl: bench.lms.jwksUrl, tokenUrl: `${bench.lms.url}/token`, active: false, acceptNewDeployments: true, deployments: [],
    });

    // Inactive: the login is refused with a page for the administrator, and the LMS is not asked.
    const url = new URL(bench.lms.loginUrl("student-1", bench.linkId));
    const refused = await request(url.origin).get(url.pathname + url.search);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("waits for activation");
    expect(refusals(bench, "lti_refused")).toContain("registration_inactive");

    // The administrator's step; a second later the stored registration is read again.
    expect(await store.setLtiRegistrationActive(bench.lms.issuer, clientId, true)).toBe(true);
    await sleep(1100);
    await linkCourse(bench); // course binding: the instructor opened the link once
    const { launch } = await walkLaunch(bench);
    expect(launch.status).toBe(200);
    expect(launch.headers["content-security-policy"]).toContain(`frame-ancestors ${bench.lms.url}`);
    const opened = await request(bench.stack.app.url).get(linkOf(launch.text)!).expect(303);
    expect(opened.headers.location).toContain(`/exam/${bench.examId}?__clerk_ticket=`);
    // The deployment id arrived with the first launch, and was recorded.
    expect((await store.getLtiRegistration(bench.lms.issuer, clientId))?.deployments).toEqual([{ id: bench.lms.deploymentId }]);
    expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_deployment_recorded" && l.obj.clientId === clientId)).toBe(true);
  });

  it("refuses a registration token the LMS does not know: its configuration answers 401, nothing is stored", async () => {
    const before = (await store.listLtiRegistrations()).length;
    const res = await register(bench, { openid_configuration: `${bench.lms.url}/openid-configuration`, registration_token: "made-up" });
    expect(res.status).toBe(502);
    expect(res.text).toContain("could not be read or used");
    // The LMS's status is not shown (as a number on its own: the page names the LMS's URL,
    // whose random port may contain "401", as 40155 once did in CI).
    expect(res.text).not.toMatch(/\b401\b/);
    expect(refusals(bench).at(-1)).toBe("openid_configuration_unreachable");
    expect(await store.listLtiRegistrations()).toHaveLength(before);
  });

  it("refuses an issuer that is not on the configuration URL's host, without posting a registration", async () => {
    const before = { stored: (await store.listLtiRegistrations()).length, posted: bench.lms.toolRegistrations.length };
    bench.lms.setRegistrationFault("issuer_mismatch");
    try {
      const res = await register(bench);
      expect(res.status).toBe(502);
      expect(res.text).toContain("could not be read or used");
      expect(refusals(bench).at(-1)).toBe("issuer_mismatch");
    } finally { bench.lms.setRegistrationFault(undefined); }
    expect(bench.lms.toolRegistrations).toHaveLength(before.posted);
    expect(await store.listLtiRegistrations()).toHaveLength(before.stored);
  });

  it("refuses when the LMS refuses the registration, nothing stored and nothing the LMS said on the page", async () => {
    const before = (await store.listLtiRegistrations()).length;
    bench.lms.setRegistrationFault("refuse_registration");
    try {
      const res = await register(bench);
      expect(res.status).toBe(502);
      expect(res.text).toContain("answered HTTP 400: it did not accept the tool");
      expect(res.text).not.toContain("refused (fault)");
      expect(refusals(bench).at(-1)).toBe("registration_refused");
    } finally { bench.lms.setRegistrationFault(undefined); }
    expect(await store.listLtiRegistrations()).toHaveLength(before);
  });

  it("fetches only http(s) URLs, within a time limit and a size limit", async () => {
    const before = (await store.listLtiRegistrations()).length;
    for (const bad of ["file:///etc/passwd", "ftp://lms.example/config", "http://lms.example/config", "not a url"]) {
      const res = await register(bench, { openid_configuration: bad, registration_token: "t" });
      expect(res.status, bad).toBe(400);
    }
    expect(refusals(bench).slice(-4)).toEqual(Array(4).fill("openid_configuration"));
    // A server that never answers, and one that answers too much.
    const sockets = new Set<import("node:net").Socket>();
    const slow: Server = createServer(() => undefined);
    const big: Server = createServer((_req, res) => { res.setHeader("Content-Type", "application/json"); res.end(JSON.stringify({ pad: "x".repeat(100_000) })); });
    for (const s of [slow, big]) s.on("connection", (c) => { sockets.add(c); });
    await Promise.all([slow, big].map((s) => new Promise<void>((r) => s.listen(0, "127.0.0.1", r))));
    try {
      const at = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/config`;
      const started = Date.now();
      const timedOut = await register(bench, { openid_configuration: at(slow), registration_token: "t" });
      expect(timedOut.status).toBe(502);
      expect(timedOut.text).toContain("could not be read or used");
      expect(Date.now() - started).toBeLessThan(5000);
      const tooLarge = await register(bench, { openid_configuration: at(big), registration_token: "t" });
      expect(tooLarge.status).toBe(502);
      expect(tooLarge.text).toContain("could not be read or used");
    } finally {
      for (const c of sockets) c.destroy();
      await Promise.all([slow, big].map((s) => new Promise((r) => s.close(r))));
    }
    expect(await store.listLtiRegistrations()).toHaveLength(before);
  });
});

describe("LTI registrations from the store", () => {
  let bench: LtiBench;
  let store: OralStoreWithLti;
  // A store and bench per test: one test stores a registration, another expects none.
  beforeEach(async () => {
    store = memoryStore();
    bench = await startLtiBench({ registrations: [] }, { router: { store } });
  });
  afterEach(async () => { await bench.close(); });

  it("answers 404 at /lti/register when Dynamic Registration is off, asking the LMS nothing", async () => {
    const res = await register(bench);
    expect(res.status).toBe(404);
    expect(res.text).toContain("Dynamic Registration is off");
    expect(bench.lms.toolRegistrations).toHaveLength(0);
    expect(await store.listLtiRegistrations()).toEqual([]);
  });

  it("uses a registration stored while running for login and launch, no restart needed", async () => {
    const url = new URL(bench.lms.loginUrl("student-1", bench.linkId));
    const unknown = await request(url.origin).get(url.pathname + url.search);
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("no registration for issuer");
    const { deployments: _, ...registration } = bench.lms.registration();
    await store.putLtiRegistration({ ...registration, active: true, acceptNewDeployments: false, data: {}, createdAt: new Date().toISOString() });
    await sleep(1100);
    // Deployments are not accepted unless recorded: the launch names one the store lacks.
    const refused = await walkLaunch(bench);
    expect(refused.launch.status).toBe(400);
    expect(refusals(bench, "lti_refused").at(-1)).toBe("deployment_id");
    await store.putLtiDeployment(bench.lms.issuer, bench.lms.clientId, { id: bench.lms.deploymentId });
    await sleep(1100);
    await linkCourse(bench); // course binding: the instructor opened the link once
    const { launch } = await walkLaunch(bench);
    expect(launch.status).toBe(200);
    expect(launch.text).toContain("Open the exam");
  });
});

describe("LTI Dynamic Registration with autoActivate and allowedHosts", () => {
  let bench: LtiBench;
  let store: OralStoreWithLti;
  // A store and bench per test: one test stores a registration, another expects none.
  beforeEach(async () => {
    store = memoryStore();
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { autoActivate: true, allowedHosts: ["localhost"], acceptNewDeployments: true, allowLoopbackHttp: true } }, { router: { store } });
  });
  afterEach(async () => { await bench.close(); });

  it("refuses a configuration URL on a host not allowed, asking it nothing", async () => {
    const url = new URL(bench.lms.dynamicRegistrationUrl(registerPath(bench)));
    const res = await register(bench, { openid_configuration: url.searchParams.get("openid_configuration")!.replace("localhost", "127.0.0.1"), registration_token: url.searchParams.get("registration_token")! });
    expect(res.status).toBe(403);
    expect(refusals(bench).at(-1)).toBe("host_not_allowed");
    expect(await store.listLtiRegistrations()).toEqual([]);
  });

  it("stores an allowed LMS's registration active: the first launch works at once", async () => {
    expect((await register(bench)).status).toBe(200);
    expect(await store.getLtiRegistration(bench.lms.issuer, bench.lms.clientId)).toMatchObject({ active: true });
    await linkCourse(bench); // course binding: the instructor opened the link once
    const { launch } = await walkLaunch(bench);
    expect(launch.status).toBe(200);
    expect(launch.text).toContain("Open the exam");
  });
});
