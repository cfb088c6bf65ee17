/**
 * Many organizations in one app, over real HTTP: one router with an `organization`
 * resolver in front of an emulator hosting two schools. What one school created is unknown
 * to the other whatever the platform would say; a request without an organization is a 404
 * and a failing resolver a 503, with nothing sent upstream; a rotated key is used at once
 * and a refused one is asked for again once; no key in any answer or log line.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator, type EmulatorOrganization } from "../../src/emulator/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { oralAssessments, type OralAssessmentsRouter } from "../../src/router/index.js";
import type { OrganizationInfo } from "../../src/router/shared/organization-info.js";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { createPlatformClient } from "../../src/platform/index.js";
import { assertNoKey, captureLogger } from "../support/canary.js";
import { listenWithHeaderUser, type Listening } from "../support/http.js";
import { TEST_KEY, WRONG_KEY } from "../support/keys.js";

const ROTATED = `svc_test_${randomBytes(24).toString("hex")}`;
const SIGN_IN = "/students/sign-in-token";

let emulator: Emulator;
let north: EmulatorOrganization;
let south: EmulatorOrganization;
let router: OralAssessmentsRouter;
let app: Listening;
const logger = captureLogger();
/** What the resolver answers per school; tests change it (rotation, a refused key). */
const keys = new Map<string, string[]>();
let resolverCalls = 0;
let resolverThrows = false;

beforeAll(async () => {
  emulator = await startEmulator({
    organizations: [{ id: "north", name: "North High", testKeys: [TEST_KEY, ROTATED] }, { id: "south", name: "South College" }],
    rateLimits: { dev: 10_000 },
  });
  north = emulator.organization("north");
  south = emulator.organization("south");
  router = oralAssessments({
    organization: (req): OrganizationInfo | undefined => {
      resolverCalls += 1;
      if (resolverThrows) throw new Error(`vault down while reading ${TEST_KEY}`);
      const school = req.get("x-school");
      const org = school === "north" ? north : school === "south" ? south : undefined;
      if (!org) return undefined;
      // Each call takes the next key of the list (the last one stays).
      const list = keys.get(org.id)!;
      const apiKey = list.length > 1 ? list.shift()! : list[0]!;
      return { id: org.id, apiKey, baseUrl: emulator.url, examHost: org.examHost };
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
beforeEach(() => {
  keys.set("north", [TEST_KEY]);
  keys.set("south", [south.testKey]);
  resolverThrows = false;
});

const as = (school: string | undefined, user = "teacher") => ({ ...(school ? { "x-school": school } : {}), "x-user": user, origin: app.url });
async function api(school: string | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.url}/oral${path}`, {
    method, headers: { ...as(school), ...(body ? { "content-type": "application/json" } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assertNoKey(text, `the answer to ${method} ${path}`);
  expect(text).not.toContain(ROTATED);
  return { status: res.status, type: res.headers.get("content-type") ?? "", json: text.startsWith("{") ? JSON.parse(text) : undefined, text };
}
async function launch(school: string | undefined, examId: string) {
  const res = await fetch(`${app.url}/oral/launch/${examId}`, { redirect: "manual", headers: as(school, "student-1") });
  const text = await res.text();
  assertNoKey(text, "a launch answer");
  return { status: res.status, location: res.headers.get("location") ?? "", type: res.headers.get("content-type") ?? "", text };
}
const upstreamSince = (from: number) => emulator.requests.slice(from);

async function examOf(school: string): Promise<{ courseId: string; classId: string; examId: string }> {
  const course = await api(school, "POST", "/courses", { name: `${school} course` });
  expect(course.status).toBe(201);
  const cls = await api(school, "POST", `/courses/${course.json.data._id}/classes`, { name: "Period 1", startDate: "2026-09-01", endDate: "2027-06-30" });
  expect(cls.status).toBe(201);
  const exam = await api(school, "POST", "/oral-assessments", { name: "Oral 1", classId: cls.json.data._id, questions: [{ text: "Why?" }] });
  expect(exam.status).toBe(201);
  return { courseId: course.json.data._id, classId: cls.json.data._id, examId: exam.json.data._id };
}

describe("two organizations in one router", () => {
  it("keeps what each school created to itself: lists never mix, another school's id is a 404 with nothing sent upstream", async () => {
    const n = await examOf("north");
    const s = await examOf("south");
    const northCourses = await api("north", "GET", "/courses");
    const southCourses = await api("south", "GET", "/courses");
    expect(northCourses.json.data.map((c: { _id: string }) => c._id)).toContain(n.courseId);
    expect(northCourses.json.data.map((c: { _id: string }) => c._id)).not.toContain(s.courseId);
    expect(southCourses.json.data.map((c: { _id: string }) => c._id)).not.toContain(n.courseId);

    const before = emulator.requests.length;
    const cross = await api("south", "GET", `/oral-assessments/${n.examId}`);
    expect(cross.status).toBe(404);
    expect(cross.type).toMatch(/application\/problem\+json/);
    expect((await api("south", "DELETE", `/courses/${n.courseId}`)).status).toBe(404);
    // North's class named in south's create: refused before anything is sent.
    const intoNorth = await api("south", "POST", "/oral-assessments", { name: "Sneaky", classId: n.classId, questions: [{ text: "Why?" }] });
    expect(intoNorth.status).toBe(404);
    expect(upstreamSince(before)).toEqual([]);
  });

  it("answers an oral exam's id on the roleplay routes 404 in its own school, with nothing sent upstream", async () => {
    const n = await examOf("north");
    const before = emulator.requests.length;
    for (const [method, body] of [["GET", undefined], ["PUT", { name: "Renamed" }], ["DELETE", undefined]] as const) {
      const wrongKind = await api("north", method, `/roleplays/${n.examId}`, body);
      expect(wrongKind.status, method).toBe(404);
      expect(wrongKind.json.detail, method).toContain(`No roleplay ${n.examId}`);
    }
    expect(upstreamSince(before)).toEqual([]);
    expect((await api("north", "GET", `/oral-assessments/${n.examId}`)).status).toBe(200);
  });

  it("sends a student of one school who opens the other school's launch link to the 404 page, with no sign-in call", async () => {
    const n = await examOf("north");
    const before = emulator.requests.length;
    const cross = await launch("south", n.examId);
    expect(cross.status).toBe(404);
    expect(cross.type).toMatch(/text\/html/);
    expect(upstreamSince(before).filter((r) => r.path === SIGN_IN)).toEqual([]);

    const own = await launch("north", n.examId);
    expect(own.status).toBe(303);
    expect(new URL(own.location).origin).toBe(new URL(north.examHost).origin);
    const signIns = upstreamSince(before).filter((r) => r.path === SIGN_IN);
    expect(signIns.map((r) => r.org)).toEqual(["north"]);
  });

  it("creates twice for the same Idempotency-Key in two schools, and replays within one", async () => {
    const key = `idem-${randomBytes(6).toString("hex")}`;
    const a = await api("north", "POST", "/courses", { name: "Same key" }, { "idempotency-key": key });
    const b = await api("south", "POST", "/courses", { name: "Same key" }, { "idempotency-key": key });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.json.data._id).not.toBe(b.json.data._id);
    const again = await api("north", "POST", "/courses", { name: "Same key" }, { "idempotency-key": key });
    expect(again.json.data._id).toBe(a.json.data._id);
  });

  it("answers a request without an organization 404 (problem+json on the API, a page on a launch), nothing sent upstream", async () => {
    const before = emulator.requests.length;
    const res = await api(undefined, "GET", "/courses");
    expect(res.status).toBe(404);
    expect(res.type).toMatch(/application\/problem\+json/);
    expect(res.json.code).toBe("organization_not_found");
    const page = await launch(undefined, "abc123");
    expect(page.status).toBe(404);
    expect(page.type).toMatch(/text\/html/);
    expect(upstreamSince(before)).toEqual([]);
  });

  it("sends a signed-out visitor to sign in before asking for an organization, and answers a HEAD doing nothing", async () => {
    const calls = resolverCalls;
    const signedOut = await fetch(`${app.url}/oral/launch/abc123`, { redirect: "manual" });
    expect(signedOut.status).toBe(401);
    const head = await fetch(`${app.url}/oral/launch/abc123`, { method: "HEAD", headers: as("north", "student-1") });
    expect(head.status).toBe(204);
    expect(resolverCalls).toBe(calls);
  });

  it("answers 503 when the resolver throws, logged without the key, nothing sent upstream", async () => {
    resolverThrows = true;
    const before = emulator.requests.length;
    const linesBefore = logger.lines.length;
    const res = await api("north", "GET", "/courses");
    expect(res.status).toBe(503);
    expect(res.json.code).toBe("organization_unavailable");
    const page = await launch("north", "abc123");
    expect(page.status).toBe(503);
    expect(upstreamSince(before)).toEqual([]);
    const lines = logger.lines.slice(linesBefore).filter((l) => l.obj.event === "organization_resolver_failed");
    expect(lines).toHaveLength(2); // once per request
    assertNoKey(lines, "the resolver's log lines");
  });

  it("uses a rotated key at once, and asks again once when the platform refuses a key", async () => {
    // POSTs: a list could come from the router's list cache, which the organization keeps across keys.
    keys.set("north", [ROTATED]);
    const before = emulator.requests.length;
    expect((await api("north", "POST", "/courses", { name: "Rotated" })).status).toBe(201);
    // The emulator answered as north: the new key reached it (a refused key is a 401).
    expect(upstreamSince(before).map((r) => [r.org, r.status])).toEqual([["north", 201]]);

    // A refused key, then the resolver answers a good one: one retry, the instructor sees 200.
    keys.set("north", [WRONG_KEY, TEST_KEY]);
    const calls = resolverCalls;
    const from = emulator.requests.length;
    const retried = await api("north", "POST", "/courses", { name: "Retried" });
    expect(retried.status).toBe(201);
    expect(resolverCalls - calls).toBe(2);
    expect(upstreamSince(from).map((r) => r.status)).toEqual([401, 201]);

    // Refused again after asking again: a 502 that says so.
    keys.set("north", [WRONG_KEY]);
    const refused = await api("north", "POST", "/courses", { name: "Refused" });
    expect(refused.status).toBe(502);
    expect(refused.json.detail).toMatch(/also after the organization resolver was asked again/);
    assertNoKey(logger.lines, "the router's log lines");
    expect(JSON.stringify(logger.lines)).not.toContain(ROTATED);
  });
});

describe("the organization option's configuration", () => {
  it("refuses platform and organization together, and examHost beside organization, in one error", () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    try {
      let error: unknown;
      try {
        oralAssessments({ platform, examHost: "https://exams.example.edu", organization: () => undefined, canLaunch: "any-signed-in-user" });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).problems.map((p) => p.option)).toEqual(expect.arrayContaining(["platform", "examHost"]));
    } finally {
      platform.close();
    }
  });
});
