/**
 * The organization resolver's latest answer is applied as given, over real HTTP: a router
 * with an `organization` resolver whose answer the tests change between requests. A
 * rotated key is not refused by the old key's open circuit breaker; a new `baseUrl` with
 * the same key sends the next call to the new address; an LTI exam link opens on the
 * exam host of the latest answer, as a direct launch does.
 */
import { randomBytes } from "node:crypto";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLmsEmulator, startEmulator, type Emulator, type LmsEmulator } from "../../src/emulator/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { oralAssessments, type OralAssessmentsRouter } from "../../src/router/index.js";
import type { OrganizationInfo } from "../../src/router/shared/organization-info.js";
import { assertNoKey, captureLogger } from "../support/canary.js";
import { listen, type Listening } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";
import { linkCourse, linkOf, DASHBOARD_EXAMS_LINKABLE, TOOL_KEY_PEM, walkLaunch, type LtiBench } from "../support/lti.js";

const ROTATED = `svc_test_${randomBytes(24).toString("hex")}`;
/** The key whose sign-in breaker the breaker test opens: no other test launches with it. */
const BROKEN = `svc_test_${randomBytes(24).toString("hex")}`;
const SIGN_IN = "/students/sign-in-token";

let first: Emulator;
let second: Emulator;
let lms: LmsEmulator;
let router: OralAssessmentsRouter;
let app: Listening;
const logger = captureLogger();
/** What the resolver answers now; each test sets it. */
let answer: OrganizationInfo;

beforeAll(async () => {
  first = await startEmulator({ organizations: [{ id: "north", name: "North High", testKeys: [TEST_KEY, ROTATED, BROKEN] }], rateLimits: { dev: 10_000 } });
  second = await startEmulator({ organizations: [{ id: "north", name: "North High", testKeys: [TEST_KEY] }], rateLimits: { dev: 10_000 } });
  lms = await createLmsEmulator({ deploymentId: "dep-north", clientId: "client-north" });
  router = oralAssessments({
    organization: () => ({ ...answer }),
    organizationClient: { maxRetries: 0 },
    store: memoryStore(),
    isInstructor: (req) => req.get("x-user") === "teacher",
    canLaunch: "any-signed-in-user",
    logger,
    lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration([{ id: "dep-north", organization: "north" }])], canLink: DASHBOARD_EXAMS_LINKABLE },
  });
  const host = express();
  host.use((req, _res, next) => {
    const user = req.get("x-user");
    if (user) (req as unknown as { user: object }).user = { id: user, email: `${user}@school.test`, firstName: "Ada", lastName: "Lovelace" };
    next();
  });
  host.use("/oral", router);
  app = await listen(host);
  lms.registerTool(`${app.url}/oral`);
});
afterAll(async () => {
  await app?.close();
  await router?.close();
  await Promise.all([lms?.close(), first?.close(), second?.close()]);
});
beforeEach(() => {
  answer = { id: "north", apiKey: TEST_KEY, baseUrl: first.url, examHost: first.organization("north").examHost };
  first.clearFaults();
});

async function post(path: string, body: unknown) {
  const res = await request(app.url).post(`/oral${path}`).set({ "x-user": "teacher", origin: app.url }).send(body as object);
  assertNoKey(res.text, `the answer to POST ${path}`);
  return res;
}
async function examOf(): Promise<string> {
  const course = (await post("/courses", { name: "course" })).body.data._id as string;
  const cls = (await post(`/courses/${course}/classes`, { name: "class", startDate: "2026-09-01", endDate: "2027-06-30" })).body.data._id as string;
  return (await post("/oral-assessments", { name: "oral", classId: cls, questions: [{ text: "Why?" }] })).body.data._id as string;
}
const launch = (examId: string, user: string) => request(app.url).get(`/oral/launch/${examId}`).set("x-user", user);

describe("the organization's latest answer", () => {
  it("checks the organization before an exam link is taken: followed under another school it is the 404 page, and still opens under its own", async () => {
    const examId = await examOf();
    const link = lms.addResourceLink({ title: "Oral", custom: { exam_id: examId } });
    const bench = { lms, linkId: link.id, stack: { app: { url: app.url } } } as unknown as LtiBench;
    await linkCourse(bench);
    const { launch: page } = await walkLaunch(bench, "student-1");
    const href = linkOf(page.text)!;
    const north = answer;
    answer = { ...north, id: "south" };
    const cross = await request(app.url).get(href);
    expect(cross.status).toBe(404);
    expect(cross.text).toContain("another school");
    answer = north;
    const own = await request(app.url).get(href);
    expect(own.status).toBe(303);
    expect(own.headers.location).toContain(`/exam/${examId}?`);
  });

  it("applies a new baseUrl given with the same key: the next call goes to the new address", async () => {
    await post("/courses", { name: "before the move" });
    answer = { ...answer, baseUrl: second.url };
    const [atFirst, atSecond] = [first.requests.length, second.requests.length];
    const moved = await post("/courses", { name: "after the move" });
    expect(moved.status).toBe(201);
    expect(second.requests.length).toBe(atSecond + 1);
    expect(first.requests.length).toBe(atFirst);
    expect(logger.lines.some((l) => l.obj.event === "organization_client_changed")).toBe(true);
  });

  it("opens an LTI exam link on the exam host of the latest answer, like a direct launch", async () => {
    const examId = await examOf();
    const link = lms.addResourceLink({ title: "Oral", custom: { exam_id: examId } });
    const bench = { lms, linkId: link.id, stack: { app: { url: app.url } } } as unknown as LtiBench;
    await linkCourse(bench);
    const open = async (user: string) => {
      const { launch: page } = await walkLaunch(bench, user);
      expect(page.status).toBe(200);
      return request(app.url).get(linkOf(page.text)!);
    };
    const old = await open("student-1");
    expect(old.status).toBe(303);
    expect(old.headers.location).toContain(`${answer.examHost}/exam/${examId}?`);

    answer = { ...answer, examHost: "http://localhost:4999" };
    const direct = await launch(examId, "direct-2");
    expect(direct.headers.location).toContain(`http://localhost:4999/exam/${examId}?`);
    const moved = await open("student-2");
    expect(moved.status).toBe(303);
    expect(moved.headers.location).toContain(`http://localhost:4999/exam/${examId}?`);
  });

  it("scopes the sign-in breaker to the current key: after a rotation the old key's open breaker refuses no one", async () => {
    const examId = await examOf();
    // A key of its own: the breaker it opens stays open, and no other test may meet it.
    answer = { ...answer, apiKey: BROKEN };
    first.fault({ type: "status", status: 500, count: 10_000, pathPrefix: SIGN_IN });
    for (let i = 0; i < 5; i += 1) expect((await launch(examId, `b${i}`)).status).toBe(502);
    expect((await launch(examId, "b5")).status).toBe(503);
    // The school rotates its key (and the platform answers again): the next launch is sent.
    first.clearFaults();
    answer = { ...answer, apiKey: ROTATED };
    const before = first.requests.length;
    const after = await launch(examId, "b6");
    expect(after.status).toBe(303);
    expect(first.requests.slice(before).filter((r) => r.path === SIGN_IN)).toHaveLength(1);
  });
});
