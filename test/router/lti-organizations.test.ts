/**
 * LTI with many organizations, over real HTTP: one router with an `organization`
 * resolver (the `x-school` header), two LMSs whose deployments name the two schools.
 * The picker lists only the deployment's school's exams; a learner's launch from
 * deployment A runs A's exam on A's exam host, and A's link followed under B is the 404
 * page with no sign-in. And a sweep (which runs each of those again itself): no private
 * member of the tool's key and no platform key in any LTI answer or log line.
 */
import { createPrivateKey } from "node:crypto";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLmsEmulator, startEmulator, type Emulator, type EmulatorOrganization, type LmsEmulator } from "../../src/emulator/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { oralAssessments, type OralAssessmentsRouter } from "../../src/router/index.js";
import { assertNoKey, captureLogger } from "../support/canary.js";
import { listen, type Listening } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";
import { formFields, linkOf, DASHBOARD_EXAMS_LINKABLE, TOOL_KEY_PEM, walkLaunch, type LtiBench } from "../support/lti.js";

let emulator: Emulator;
let north: EmulatorOrganization;
let south: EmulatorOrganization;
let lmsNorth: LmsEmulator;
let lmsSouth: LmsEmulator;
let router: OralAssessmentsRouter;
let app: Listening;
const logger = captureLogger();
/** Every LTI answer of this file, for the key sweep. */
const answers: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ organizations: [{ id: "north", name: "North High", testKeys: [TEST_KEY] }, { id: "south", name: "South College" }], rateLimits: { dev: 10_000 } });
  north = emulator.organization("north");
  south = emulator.organization("south");
  lmsNorth = await createLmsEmulator({ deploymentId: "dep-north", clientId: "client-north" });
  lmsSouth = await createLmsEmulator({ deploymentId: "dep-south", clientId: "client-south" });
  router = oralAssessments({
    organization: (req) => {
      const org = req.get("x-school") === "north" ? north : req.get("x-school") === "south" ? south : undefined;
      return org && { id: org.id, apiKey: org.id === "north" ? TEST_KEY : south.testKey, baseUrl: emulator.url, examHost: org.examHost };
    },
    store: memoryStore(),
    isInstructor: (req) => req.get("x-user") === "teacher",
    canLaunch: "any-signed-in-user",
    logger,
    lti: {
      keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }],
      registrations: [
        lmsNorth.registration([{ id: "dep-north", organization: "north" }]),
        lmsSouth.registration([{ id: "dep-south", organization: "south" }]),
      ],
      canLink: DASHBOARD_EXAMS_LINKABLE,
    },
  });
  const host = express();
  host.use((req, _res, next) => {
    if (req.get("x-user")) (req as unknown as { user: object }).user = { id: req.get("x-user"), email: "t@school.test" };
    next();
  });
  host.use("/oral", router);
  app = await listen(host);
  lmsNorth.registerTool(`${app.url}/oral`);
  lmsSouth.registerTool(`${app.url}/oral`);
});
afterAll(async () => {
  await app?.close();
  await router?.close();
  await Promise.all([lmsNorth?.close(), lmsSouth?.close(), emulator?.close()]);
});

const benchOf = (lms: LmsEmulator, linkId: string) => ({ lms, linkId, stack: { app: { url: app.url } } }) as unknown as LtiBench;
async function post(school: string, path: string, body: unknown) {
  const res = await request(app.url).post(`/oral${path}`).set({ "x-school": school, "x-user": "teacher", origin: app.url }).send(body as object);
  expect(res.status).toBe(201);
  return res.body.data._id as string;
}
async function examOf(school: string): Promise<string> {
  const course = await post(school, "/courses", { name: `${school} course` });
  const cls = await post(school, `/courses/${course}/classes`, { name: `${school} class`, startDate: "2026-09-01", endDate: "2027-06-30" });
  return post(school, "/oral-assessments", { name: `${school} oral`, classId: cls, questions: [{ text: "Why?" }] });
}
const keep = <T extends { text: string }>(res: T): T => { answers.push(res.text); return res; };

describe("LTI deployments mapped to two organizations", () => {
  let northExam: string;
  let southExam: string;
  beforeAll(async () => {
    northExam = await examOf("north");
    southExam = await examOf("south");
  });

  // Each check is a function of its own: its test runs it, and the sweep runs them all
  // again, so the sweep reads answers of every kind whichever tests ran before it.

  async function picksOnlyOwnExams(): Promise<void> {
    for (const [lms, own, other] of [[lmsNorth, northExam, southExam], [lmsSouth, southExam, northExam]] as const) {
      const { launch } = await walkLaunch(benchOf(lms, lms.openDeepLinking()), "instructor-1");
      keep(launch);
      expect(launch.status).toBe(200);
      expect(launch.text).toContain(`value="${own}"`);
      expect(launch.text).not.toContain(other);
      const pick = /name="pick" value="([^"]+)"/.exec(launch.text)![1]!;
      const chosen = keep(await request(app.url).post("/oral/lti/deep-link").type("form").send({ pick, examId: own }));
      expect(chosen.status).toBe(200);
      // Another school's exam is not a choice, even for a live picker.
      const { launch: again } = await walkLaunch(benchOf(lms, lms.openDeepLinking()), "instructor-1");
      const pick2 = /name="pick" value="([^"]+)"/.exec(again.text)![1]!;
      expect(keep(await request(app.url).post("/oral/lti/deep-link").type("form").send({ pick: pick2, examId: other })).status).toBe(400);
      await request(lms.url).post("/deep-link-return").type("form").send({ JWT: formFields(chosen.text).JWT! }).expect(200);
    }
  }

  async function runsOnlyInItsSchool(): Promise<void> {
    const link = lmsNorth.addResourceLink({ title: "North oral", custom: { exam_id: northExam } });
    // The course's instructor opens the link once: that links the exam's class to the
    // course, without which a learner gets "not open in your course yet" (course-binding.ts).
    expect(keep((await walkLaunch(benchOf(lmsNorth, link.id), "instructor-1")).launch).status).toBe(200);
    const first = keep((await walkLaunch(benchOf(lmsNorth, link.id))).launch);
    const opened = keep(await request(app.url).get(linkOf(first.text)!).set("x-school", "north"));
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toContain(`${north.examHost}/exam/${northExam}?`);

    const before = emulator.requests.length;
    const second = keep((await walkLaunch(benchOf(lmsNorth, link.id), "student-2")).launch);
    const cross = keep(await request(app.url).get(linkOf(second.text)!).set("x-school", "south"));
    expect(cross.status).toBe(404);
    expect(cross.text).toContain("another school");
    expect(emulator.requests.slice(before).filter((r) => r.path.includes("sign-in-token"))).toEqual([]);
  }

  async function showsInstructorPageOfItsSchool(): Promise<void> {
    const link = lmsSouth.addResourceLink({ title: "South oral", custom: { exam_id: southExam } });
    const page = keep((await walkLaunch(benchOf(lmsSouth, link.id), "instructor-1")).launch);
    expect(page.text).toContain("<h1>south oral</h1>");
    const wrong = lmsSouth.addResourceLink({ title: "North oral here", custom: { exam_id: northExam } });
    expect(keep((await walkLaunch(benchOf(lmsSouth, wrong.id), "instructor-1")).launch).text).toContain("Exam not found");
  }

  it("lists only the deployment's school's exams in the picker, and places one of them", picksOnlyOwnExams);

  it("runs deployment A's link in A's exam, and A's link followed under B is the 404 page with no sign-in", runsOnlyInItsSchool);

  it("shows the instructor page from the deployment's school", showsInstructorPageOfItsSchool);

  it("sweep: no private member of the tool's key and no platform key in any LTI answer or log line", async () => {
    const before = answers.length;
    await picksOnlyOwnExams();
    await runsOnlyInItsSchool();
    await showsInstructorPageOfItsSchool();
    keep(await request(app.url).get("/oral/lti/jwks.json"));
    expect(answers.length - before).toBeGreaterThan(8);
    const jwk = createPrivateKey(TOOL_KEY_PEM).export({ format: "jwk" }) as Record<string, string>;
    const secrets = ["d", "p", "q", "dp", "dq", "qi"].map((m) => jwk[m]!);
    const pemBody = TOOL_KEY_PEM.split("\n").filter((l) => l && !l.startsWith("-----"));
    // Everything this file answered and logged so far: this test's answers and any earlier test's.
    const everything = [...answers, ...logger.lines.map((l) => JSON.stringify(l))].join("\n");
    for (const s of [...secrets, ...pemBody.slice(1, -1)]) expect(everything).not.toContain(s);
    assertNoKey(everything, "the LTI answers and log lines");
    expect(everything).not.toContain(south.testKey);
  });
});
