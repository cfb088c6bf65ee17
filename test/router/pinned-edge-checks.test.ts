/**
 * Edge checks of the router that no other test pinned (found by a mutation sweep): each
 * test here fails when its check is deleted or loosened. Over real HTTP on 127.0.0.1: the
 * emulator, the router in an Express app, a small LMS for Dynamic Registration.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, memoryStore, oralAssessments, type OralAssessmentsRouter } from "../../src/index.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import type { OrganizationInfo } from "../../src/router/shared/organization-info.js";
import { assertNoKey, captureLogger } from "../support/canary.js";
import { startTestEmulator } from "../support/emulator.js";
import { listenWithHeaderUser, type Listening } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";
import { startLtiBench } from "../support/lti.js";
import { startStack } from "../support/stack.js";

const COURSE_ID = "0123456789abcdef01234567";

describe("the instructor API's guards, one organization", () => {
  let emulator: Emulator;
  let platform: ReturnType<typeof createPlatformClient>;
  let router: OralAssessmentsRouter;
  let app: Listening;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, maxRetries: 0 });
    router = oralAssessments({ platform, store: memoryStore(), isInstructor: () => true, canLaunch: "any-signed-in-user" });
    // "nameless" is signed in but carries no id, orgInternalId, email or username.
    app = await listenWithHeaderUser(router, (name) => (name === "nameless" ? { role: "instructor" } : { id: name, email: `${name}@school.test` }));
  });
  afterAll(async () => {
    await app?.close();
    await router?.close();
    platform?.close();
    await emulator?.close();
  });

  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    fetch(`${app.url}/oral${path}`, { method, headers: { "x-user": "teacher", ...headers }, body });

  it("refuses a DELETE that carries a non-JSON body (415), sending nothing upstream", async () => {
    const before = emulator.requests.length;
    const res = await send("DELETE", `/courses/${COURSE_ID}`, { "content-type": "text/plain" }, "anything");
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe("unsupported_media_type");
    expect(emulator.requests.length).toBe(before);
  });

  it("refuses a form-safe content type that merely ends in application/json (415)", async () => {
    const before = emulator.requests.length;
    // text/plain with a parameter is CORS-safelisted: a cross-site page could send it without a preflight.
    const res = await send("POST", "/courses", { "content-type": "text/plain; x=application/json" }, JSON.stringify({ name: "Smuggled" }));
    expect(res.status).toBe(415);
    expect(emulator.requests.length).toBe(before);
  });

  it("ignores X-Forwarded-Host without trust proxy: a foreign Origin naming it is still cross-site (403)", async () => {
    const before = emulator.requests.length;
    const res = await send("POST", "/courses", { "content-type": "application/json", origin: "http://evil.example", "x-forwarded-host": "evil.example" }, JSON.stringify({ name: "Forged" }));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("cross_site_request");
    expect(emulator.requests.length).toBe(before);
  });

  it("refuses an Idempotency-Key from a user with no stable id (400 naming the header), sending nothing upstream", async () => {
    const before = emulator.requests.length;
    const res = await fetch(`${app.url}/oral/courses`, {
      method: "POST", headers: { "x-user": "nameless", "content-type": "application/json", "idempotency-key": "k-1" }, body: JSON.stringify({ name: "Anyone's" }),
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors: { path: string }[] };
    expect(problem.errors[0]!.path).toBe("Idempotency-Key");
    expect(emulator.requests.length).toBe(before);
  });
});

describe("a signed-out launch with loginUrl", () => {
  it("sends returnTo as the launch path only, never the request's query", async () => {
    const stack = await startStack({ router: { loginUrl: "/login" } });
    try {
      const res = await stack.anonymous().get("/oral/launch/abc123?next=https%3A%2F%2Fevil.example").expect(303);
      expect(res.headers.location).toBe(`/login?returnTo=${encodeURIComponent("/oral/launch/abc123")}`);
    } finally { await stack.close(); }
  });
});

describe("many organizations: the resolver's answer and the organization's launch records", () => {
  let emulator: Emulator;
  let router: OralAssessmentsRouter;
  let app: Listening;
  const logger = captureLogger();

  beforeAll(async () => {
    emulator = await startEmulator({ organizations: [{ id: "north", name: "North High", testKeys: [TEST_KEY] }], rateLimits: { dev: 10_000 } });
    const north = emulator.organization("north");
    router = oralAssessments({
      organization: (req): OrganizationInfo | undefined => {
        const school = req.get("x-school");
        if (school === "short-key-error") throw new Error("vault refused svc_test_abc12345");
        if (school !== "north") return undefined;
        const emptied = req.get("x-empty");
        return { id: "north", apiKey: TEST_KEY, baseUrl: emulator.url, examHost: req.get("x-exam-host") ?? north.examHost, ...(emptied ? { [emptied]: "" } : {}) };
      },
      organizationClient: { maxRetries: 0 },
      store: memoryStore(),
      isInstructor: (req) => req.get("x-user") === "teacher",
      canLaunch: "any-signed-in-user",
      logger,
    });
    app = await listenWithHeaderUser(router, (user) => ({ id: user, email: `${user}@school.test`, firstName: "Ada", lastName: "Lovelace" }));
  });
  afterAll(async () => {
    await app?.close();
    await router?.close();
    await emulator?.close();
  });

  async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${app.url}/oral${path}`, {
      method, headers: { "x-school": "north", "x-user": "teacher", origin: app.url, ...(body ? { "content-type": "application/json" } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    assertNoKey(text, `the answer to ${method} ${path}`);
    return { status: res.status, type: res.headers.get("content-type") ?? "", text };
  }

  it.each(["http://exams.example.edu", "https://exams.example.edu/some/path", "javascript:alert(1)"])(
    "refuses a resolver answer whose examHost is %s (503), sending nothing upstream", async (examHost) => {
      const before = emulator.requests.length;
      const res = await api("GET", "/courses", undefined, { "x-exam-host": examHost });
      expect(res.status).toBe(503);
      expect(emulator.requests.length).toBe(before);
      expect(logger.lines.some((l) => l.obj.event === "organization_invalid" && String(l.obj.problems).includes("examHost"))).toBe(true);
    });

  // Two layers refuse these (the answer's check, then the client's own options): either way
  // the school's request is a 503 and nothing goes upstream.
  it.each([["apiKey", "apiKey is missing"], ["baseUrl", "baseUrl is missing"]])(
    "refuses a resolver answer whose %s is an empty string (503), sending nothing upstream", async (field, problem) => {
      const before = emulator.requests.length;
      const res = await api("GET", "/courses", undefined, { "x-empty": field });
      expect(res.status).toBe(503);
      expect(emulator.requests.length).toBe(before);
      expect(logger.lines.some((l) => l.obj.event === "organization_invalid" && String(l.obj.problems).includes(problem))).toBe(true);
    });

  it("shows the organization its own launch records, as JSON and as CSV", async () => {
    const course = JSON.parse((await api("POST", "/courses", { name: "North course" })).text).data._id as string;
    const cls = JSON.parse((await api("POST", `/courses/${course}/classes`, { name: "P1", startDate: "2026-09-01", endDate: "2027-06-30" })).text).data._id as string;
    const examId = JSON.parse((await api("POST", "/oral-assessments", { name: "Oral", classId: cls, questions: [{ text: "Why?" }] })).text).data._id as string;
    const launched = await fetch(`${app.url}/oral/launch/${examId}`, { redirect: "manual", headers: { "x-school": "north", "x-user": "student-7" } });
    expect(launched.status).toBe(303);

    const json = await api("GET", `/oral-assessments/${examId}/launches`);
    expect(json.status).toBe(200);
    const records = JSON.parse(json.text).data as { student: { email: string } }[];
    expect(records.map((r) => r.student.email)).toEqual(["student-7@school.test"]);

    const csv = await api("GET", `/oral-assessments/${examId}/launches`, undefined, { accept: "text/csv" });
    expect(csv.status).toBe(200);
    expect(csv.type).toMatch(/text\/csv/);
    expect(csv.text.trimEnd().split("\r\n")).toHaveLength(2);
    expect(csv.text).toContain("student-7@school.test");
  });

  it("logs a resolver error with a short key-like token fully redacted (no trailing characters shown)", async () => {
    const res = await api("GET", "/courses", undefined, { "x-school": "short-key-error" });
    expect(res.status).toBe(503);
    const line = logger.lines.filter((l) => l.obj.event === "organization_resolver_failed").at(-1);
    expect(line?.obj.error).toBe("vault refused svc_test_…");
  });
});

describe("Dynamic Registration's answer size limit", () => {
  it("refuses an OpenID configuration larger than 64 KiB without posting a registration", async () => {
    let posted = 0;
    let url = "";
    const lms = createServer((req, res) => {
      res.setHeader("Content-Type", "application/json");
      if (req.method === "GET") {
        res.end(JSON.stringify({
          issuer: url, authorization_endpoint: `${url}/auth`, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token`,
          registration_endpoint: `${url}/register`, id_token_signing_alg_values_supported: ["RS256"], padding: "x".repeat(70 * 1024),
        }));
        return;
      }
      posted += 1;
      req.resume();
      req.on("end", () => res.end(JSON.stringify({ client_id: "c-big" })));
    });
    await new Promise<void>((r) => lms.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(lms.address() as AddressInfo).port}`;
    const bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 5_000, allowLoopbackHttp: true } }, { router: { store: memoryStore() } });
    try {
      const res = await fetch(`${bench.stack.app.url}/oral/lti/register?${new URLSearchParams({ openid_configuration: `${url}/config`, registration_token: "t" })}`);
      expect(res.status).toBe(502);
      expect(posted).toBe(0);
      const refused = bench.stack.logger.lines.filter((l) => l.obj.event === "lti_register_refused").at(-1);
      expect(refused?.obj).toMatchObject({ check: "openid_configuration_unreachable", why: "too_large" });
    } finally {
      await bench.close();
      await new Promise((r) => lms.close(r));
    }
  });
});
