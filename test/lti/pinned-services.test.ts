/**
 * Checks of the gradebook (AGS), roster (NRPS) and service access that the LMS emulator
 * cannot show, because it never misbehaves in the way each one guards against: a stand-in
 * LMS over real HTTP on 127.0.0.1 (port 0) answers what a careless or hostile LMS would
 * (a line item container ignoring its filters, endless next pages, a roster ignoring the
 * role filter or listing a member twice, a next page or redirect to another origin, 4xx and
 * 5xx answers) and records what the tool sent (token requests, paths, queries).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createPublicKey } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import type { Logger } from "../../src/core/logger.js";
import { agsSender } from "../../src/lti/gradebook/ags.js";
import { readGradebookOptions, type GradebookSettings } from "../../src/lti/gradebook/options.js";
import { backoffMs, ScoreOutbox } from "../../src/lti/gradebook/outbox.js";
import type { Registration } from "../../src/lti/registrations.js";
import { readRoster } from "../../src/lti/roster.js";
import { createServiceAccess, LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "../../src/lti/service-access.js";
import { resolveLtiSettings } from "../../src/lti/settings.js";
import { memoryStore } from "../../src/store/memory.js";
import type { LtiScoreEntry } from "../../src/store/lti-gradebook-types.js";
import type { OralStore } from "../../src/store/types.js";
import { TOOL_KEY_PEM } from "../support/lti.js";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const NRPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json";
const ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#";

interface Hit { method: string; path: string; query: URLSearchParams; authorization?: string; body: string }
type Handler = (hit: Hit, res: ServerResponse) => void;

interface FakeLms {
  url: string;
  hits: Hit[];
  /** Requests to `path` (without query), with `method`. */
  to(method: string, path: string): Hit[];
  /** What `/token` answers next; default a fresh token living an hour. */
  handle: Handler;
  close(): Promise<void>;
}

/** A stand-in LMS: `/token` issues `tok-<n>` (recording the form), every other request goes to `handle`. */
async function fakeLms(): Promise<FakeLms> {
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
      const hit: Hit = { method: req.method ?? "GET", path: u.pathname, query: u.searchParams, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString("utf8") };
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

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  void res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(body === undefined ? undefined : JSON.stringify(body));

function registrationOf(lms: FakeLms): Registration {
  const problems = new ProblemList();
  const lti = resolveLtiSettings({
    keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }],
    registrations: [{ issuer: lms.url, clientId: "client-9", authorizationUrl: `${lms.url}/auth`, jwksUrl: `${lms.url}/jwks`, tokenUrl: `${lms.url}/token`, deployments: ["dep-1"] }],
  }, problems)!;
  problems.throwIfAny("test");
  return lti.registrations.all()[0]!;
}

function gradebookSettings(extra: Partial<GradebookSettings> = {}): GradebookSettings {
  const problems = new ProblemList();
  const s = readGradebookOptions({ firstRetryMs: 600_000, maxRetryMs: 3_600_000, ...extra }, problems)!;
  problems.throwIfAny("test");
  return s;
}

const ALL_AGS = [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly, LTI_SCOPES.score];

function scoreEntry(lms: FakeLms, id: string, userId: string, ags: LtiScoreEntry["ags"]): LtiScoreEntry {
  return {
    id, key: { issuer: lms.url, clientId: "client-9", deploymentId: "dep-1", contextId: "course-1", kind: "oral", examId: "exam-1" },
    userId, student: { email: `${userId}@school.example` }, label: "Oral exam exam-1", ags,
    score: { activityProgress: "Started", gradingProgress: "NotReady", timestamp: new Date().toISOString(), comment: "Started." },
    queuedAt: new Date().toISOString(),
  };
}

let lms: FakeLms;
let registration: Registration;
let access: ServiceAccess;
let store: OralStore;

function outboxFor(settings: GradebookSettings): ScoreOutbox {
  const send = agsSender({ store, access, settings, logger: quiet, registration: async () => registration });
  return new ScoreOutbox(store, send, settings, quiet);
}
const records = async (userId?: string) => (await store.listLtiScores("default", { kind: "oral", examId: "exam-1", limit: 100 })).filter((r) => userId === undefined || r.userId === userId);

beforeAll(async () => {
  lms = await fakeLms();
  registration = registrationOf(lms);
});
afterAll(async () => lms?.close());
afterEach(() => {
  vi.useRealTimers();
  lms.hits.length = 0;
  lms.handle = (_hit, res) => void res.writeHead(404).end();
});
const fresh = () => {
  access = createServiceAccess({ keys: resolveKeys(), logger: quiet });
  store = memoryStore();
};
const resolveKeys = () => {
  const problems = new ProblemList();
  return resolveLtiSettings({ keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [] }, problems)!.keys;
};

describe("AGS: the line item the tool posts to", () => {
  it("takes only the item whose resourceId is the exam's, from a container that ignores the resource_id filter", async () => {
    fresh();
    lms.handle = (hit, res) => {
      if (hit.method === "GET" && hit.path === "/lineitems") {
        return json(res, 200, [{ id: `${lms.url}/lineitems/other`, resourceId: "exam-2", tag: "oral-assessment" }, { id: `${lms.url}/lineitems/mine`, resourceId: "exam-1", tag: "oral-assessment" }]);
      }
      if (hit.method === "POST" && hit.path.endsWith("/scores")) return json(res, 204, undefined);
      json(res, 404, { error: "no" });
    };
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "sent" });
    expect(lms.to("GET", "/lineitems")[0]!.query.get("resource_id")).toBe("exam-1");
    expect(lms.to("POST", "/lineitems/mine/scores")).toHaveLength(1);
    expect(lms.to("POST", "/lineitems/other/scores")).toEqual([]);
    expect(lms.to("POST", "/lineitems")).toEqual([]);
    expect(await store.getLtiLineItem("default", scoreEntry(lms, "x", "u", { scope: [] }).key)).toBe(`${lms.url}/lineitems/mine`);
  });

  it("reads at most 20 pages of line items looking for its own, then creates it", async () => {
    fresh();
    lms.handle = (hit, res) => {
      if (hit.method === "GET" && hit.path === "/lineitems") {
        const page = Number(hit.query.get("page") ?? 1);
        // An LMS whose next link never ends (here: 30 pages), none of them the tool's item.
        return json(res, 200, [], page < 30 ? { Link: `<${lms.url}/lineitems?page=${page + 1}>; rel="next"` } : {});
      }
      if (hit.method === "POST" && hit.path === "/lineitems") return json(res, 201, { id: `${lms.url}/lineitems/made` });
      if (hit.method === "POST" && hit.path === "/lineitems/made/scores") return json(res, 204, undefined);
      json(res, 404, { error: "no" });
    };
    const ags = { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS };
    // Two learners' first scores at once: one search, one item.
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", ags), scoreEntry(lms, "s2", "u2", ags)]);
    const outbox = outboxFor(gradebookSettings());
    await outbox.drain();
    expect(lms.to("GET", "/lineitems")).toHaveLength(20);
    expect(lms.to("POST", "/lineitems")).toHaveLength(1);
    expect(lms.to("POST", "/lineitems/made/scores")).toHaveLength(2);
    expect((await records()).map((r) => r.state)).toEqual(["sent", "sent"]);
    // A later score of the exam in this course goes to the item the store kept: no search, no second column.
    await store.addLtiScores("default", [scoreEntry(lms, "s3", "u3", ags)]);
    await outbox.drain();
    expect(lms.to("GET", "/lineitems")).toHaveLength(20);
    expect(lms.to("POST", "/lineitems")).toHaveLength(1);
    expect(lms.to("POST", "/lineitems/made/scores")).toHaveLength(3);
  });

  it("does not follow a line items page on another origin: the token never goes there, and no second column is made", async () => {
    fresh();
    const other = await fakeLms();
    try {
      other.handle = (_hit, res) => json(res, 200, []);
      lms.handle = (hit, res) => (hit.method === "GET" && hit.path === "/lineitems" ? json(res, 200, [], { Link: `<${other.url}/steal?page=2>; rel="next"` }) : json(res, 404, {}));
      await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS })]);
      await outboxFor(gradebookSettings()).drain();
      expect(other.hits).toEqual([]);
      expect(lms.to("POST", "/lineitems")).toEqual([]);
      expect((await records())[0]).toMatchObject({ state: "failed", attempts: 1, lastError: expect.stringContaining(`another origin (${other.url})`) });
    } finally {
      await other.close();
    }
  });

  it("follows a relative next link of the line items on the LMS's own origin", async () => {
    fresh();
    lms.handle = (hit, res) => {
      if (hit.method === "GET" && hit.path === "/lineitems") {
        return hit.query.get("page") === "2"
          ? json(res, 200, [{ id: `${lms.url}/lineitems/mine`, resourceId: "exam-1" }])
          : json(res, 200, [], { Link: '</lineitems?page=2>; rel="next"' });
      }
      if (hit.method === "POST" && hit.path === "/lineitems/mine/scores") return json(res, 204, undefined);
      json(res, 404, {});
    };
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "sent" });
    expect(lms.to("GET", "/lineitems")).toHaveLength(2);
    expect(lms.to("POST", "/lineitems")).toEqual([]);
  });

  it("a link without the score scope is failed at once: no token asked, nothing posted", async () => {
    fresh();
    lms.handle = (_hit, res) => json(res, 204, undefined);
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, scope: [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly] })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "failed", attempts: 1, lastError: expect.stringMatching(/score scope/) });
    expect(lms.hits).toEqual([]);
  });

  it("asks for a token with only the AGS scopes the launch granted", async () => {
    fresh();
    lms.handle = (hit, res) => (hit.method === "POST" && hit.path === "/lineitems/li-1/scores" ? json(res, 204, undefined) : json(res, 404, {}));
    // The link's own line item (its lineitem claim) is used as is: no search in lineitems.
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, lineItems: `${lms.url}/lineitems`, scope: [LTI_SCOPES.score] })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "sent" });
    expect(lms.to("GET", "/lineitems")).toEqual([]);
    const tokens = lms.to("POST", "/token");
    expect(tokens).toHaveLength(1);
    expect(new URLSearchParams(tokens[0]!.body).get("scope")).toBe(LTI_SCOPES.score);
    expect(lms.to("POST", "/lineitems/li-1/scores")[0]!.authorization).toBe(`Bearer ${await access.token(registration, [LTI_SCOPES.score])}`);
  });
});

describe("the score outbox against LMS answers", () => {
  it("fails a refusal (400, 404) at once; retries 429 and 503 after a backoff", async () => {
    fresh();
    const answers: Record<string, number> = { u400: 400, u404: 404, u429: 429, u503: 503 };
    lms.handle = (hit, res) => json(res, answers[(JSON.parse(hit.body) as { userId: string }).userId] ?? 500, { error: "x" });
    const ags = { lineItem: `${lms.url}/lineitems/li-1`, scope: ALL_AGS };
    await store.addLtiScores("default", Object.keys(answers).map((u) => scoreEntry(lms, `s-${u}`, u, ags)));
    const before = Date.now();
    await outboxFor(gradebookSettings({ firstRetryMs: 600_000 })).drain();
    for (const u of ["u400", "u404"]) expect((await records(u))[0], u).toMatchObject({ state: "failed", attempts: 1 });
    for (const u of ["u429", "u503"]) {
      const r = (await records(u))[0]!;
      expect(r, u).toMatchObject({ state: "pending", attempts: 1 });
      // 600 s ± 20 %.
      expect(r.nextAtMs - before, u).toBeGreaterThanOrEqual(480_000);
      expect(r.nextAtMs - Date.now(), u).toBeLessThanOrEqual(720_000);
    }
    expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(4);
  });

  it("gives up after maxAttempts", async () => {
    fresh();
    lms.handle = (_hit, res) => json(res, 503, { error: "down" });
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, scope: ALL_AGS })]);
    const outbox = outboxFor(gradebookSettings({ maxAttempts: 2, firstRetryMs: 10, maxRetryMs: 10 }));
    for (let round = 0; round < 5; round++) {
      await outbox.drain();
      const r = (await records())[0]!;
      if (r.state !== "pending") break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, r.nextAtMs - Date.now()) + 5));
    }
    expect((await records())[0]).toMatchObject({ state: "failed", attempts: 2 });
    expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(2);
  });

  it("a score leased by one instance is not posted by another", async () => {
    fresh();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    lms.handle = (hit, res) => {
      // The first post hangs until released (a slow LMS); any other is answered at once.
      if (lms.to("POST", hit.path).length === 1) void held.then(() => json(res, 204, undefined));
      else json(res, 204, undefined);
    };
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, scope: ALL_AGS })]);
    const settings = gradebookSettings({ leaseMs: 60_000 });
    const a = outboxFor(settings);
    const b = outboxFor(settings);
    const first = a.drain();
    await vi.waitFor(() => expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(await b.drain()).toBe(0);
    release();
    expect(await first).toBe(1);
    expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(1);
    expect((await records())[0]).toMatchObject({ state: "sent", attempts: 1 });
  });

  it("backs off exponentially from firstRetryMs up to maxRetryMs, ±20 %", () => {
    const s = { firstRetryMs: 100, maxRetryMs: 1_000 };
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, s, mid))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffMs(3, s, () => 0)).toBe(320);
    expect(backoffMs(3, s, () => 1)).toBe(480);
  });
});

describe("NRPS paging against a careless LMS", () => {
  it("re-checks the role filter, skips a member listed twice, and asks for the page size", async () => {
    fresh();
    lms.handle = (_hit, res) => json(res, 200, {
      members: [
        { user_id: "teacher", roles: [`${ROLE}Instructor`] },
        { user_id: "s1", roles: [`${ROLE}Learner`] },
        { user_id: "mentor", roles: [`${ROLE}Mentor`] },
        { user_id: "s1", roles: [`${ROLE}Learner`] },
        { user_id: "s2", roles: ["Learner"] },
      ],
    });
    const read = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 5, pageSize: 37 });
    expect(read.learners.map((m) => m.user_id)).toEqual(["s1", "s2"]);
    expect(read.skipped).toBe(2);
    const asked = lms.to("GET", "/nrps")[0]!;
    expect(asked.query.get("limit")).toBe("37");
    expect(asked.query.get("role")).toBe(`${ROLE}Learner`);
    expect(new URLSearchParams(lms.to("POST", "/token")[0]!.body).get("scope")).toBe(LTI_SCOPES.memberships);
  });

  it("reads a roster of exactly maxPages pages, and refuses one a page longer", async () => {
    fresh();
    lms.handle = (hit, res) => {
      const page = Number(hit.query.get("page") ?? 1);
      json(res, 200, { members: [{ user_id: `s${page}`, roles: [`${ROLE}Learner`] }] }, page < 3 ? { Link: `</nrps?page=${page + 1}>; rel="next"` } : {});
    };
    const read = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 3, pageSize: 50 });
    expect(read).toMatchObject({ pages: 3, learners: [{ user_id: "s1" }, { user_id: "s2" }, { user_id: "s3" }] });
    const error = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 2, pageSize: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceAccessError);
    expect((error as Error).message).toMatch(/more than 2 pages/);
    expect(lms.to("GET", "/nrps")).toHaveLength(5);
  });

  it("does not follow a next page on another origin: the token never goes there", async () => {
    fresh();
    const other = await fakeLms();
    try {
      other.handle = (_hit, res) => json(res, 200, { members: [] });
      lms.handle = (_hit, res) => json(res, 200, { members: [{ user_id: "s1", roles: [`${ROLE}Learner`] }] }, { Link: `<${other.url}/nrps?page=2>; rel="next"` });
      const error = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 5, pageSize: 50 }).catch((e: unknown) => e);
      expect((error as ServiceAccessError).kind).toBe("bad_answer");
      expect((error as Error).message).toContain("another origin");
      expect(other.hits).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe("service access: what goes to the token endpoint and where the token goes", () => {
  it("the client assertion: signed by the tool's key, iss = sub = client id, aud = token URL, 5 minutes, a fresh jti, the deployment", async () => {
    fresh();
    await access.token(registration, [LTI_SCOPES.score, LTI_SCOPES.lineItem]);
    await access.token(registration, [LTI_SCOPES.memberships]);
    const forms = lms.to("POST", "/token").map((h) => new URLSearchParams(h.body));
    expect(forms).toHaveLength(2);
    expect(forms[0]!.get("grant_type")).toBe("client_credentials");
    expect(forms[0]!.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    expect(forms[0]!.get("scope")).toBe([LTI_SCOPES.lineItem, LTI_SCOPES.score].sort().join(" "));
    const jtis: unknown[] = [];
    for (const form of forms) {
      const assertion = form.get("client_assertion")!;
      expect(decodeProtectedHeader(assertion)).toMatchObject({ alg: "RS256", kid: "tool-1" });
      const { payload } = await jwtVerify(assertion, createPublicKey(TOOL_KEY_PEM), { issuer: "client-9", subject: "client-9", audience: `${lms.url}/token` });
      expect(payload.exp! - payload.iat!).toBe(300);
      expect(payload["https://purl.imsglobal.org/spec/lti/claim/deployment_id"]).toBe("dep-1");
      jtis.push(payload.jti);
    }
    expect(new Set(jtis).size).toBe(2);
  });

  it("stops using a token 60 s before it expires", async () => {
    fresh();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    const first = await access.token(registration, [LTI_SCOPES.score]);
    vi.setSystemTime(start + 3_540_000 - 1_000); // 59 min - 1 s: still used
    expect(await access.token(registration, [LTI_SCOPES.score])).toBe(first);
    vi.setSystemTime(start + 3_540_000 + 1_000); // 59 min + 1 s: inside the last minute
    expect(await access.token(registration, [LTI_SCOPES.score])).not.toBe(first);
    expect(lms.to("POST", "/token")).toHaveLength(2);
  });

  it("does not follow a service's redirect: the bearer token stays with the LMS", async () => {
    fresh();
    const other = await fakeLms();
    try {
      other.handle = (_hit, res) => json(res, 200, { members: [] });
      lms.handle = (_hit, res) => void res.writeHead(302, { Location: `${other.url}/nrps` }).end();
      const error = await access.call(registration, [LTI_SCOPES.memberships], { url: `${lms.url}/nrps`, accept: NRPS }).catch((e: unknown) => e);
      expect((error as ServiceAccessError).kind).toBe("unreachable");
      expect((error as Error).message).toContain("redirect 302");
      expect(other.hits).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
