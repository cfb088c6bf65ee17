/**
 * The tool tests of 1EdTech's LTI Advantage Conformance Certification Guide (v1.3, section
 * 6, Tool Certification) as offline fixtures: the LMS emulator sends each test's message
 * (src/emulator/lms/certification.ts) over real HTTP to the session app as the tool, and
 * each test, named by the guide's section number and test name, asserts the tool's
 * answer: the twelve bad payloads refused with the check that catches them, the
 * instructor and learner launches in every role and privacy shape, Deep Linking, Names and
 * Roles, and the gradebook. Four
 * learner launches are refused by design (docs/lti.md, "Certification"): their pages name
 * why. Also: an LMS that rotates to a new kid between two launches (issue 44.1).
 */
import request from "supertest";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CERTIFICATION_LAUNCHES, certificationLaunch } from "../../src/emulator/lms/certification.js";
import { followToExam, launchFromCourse, placeExam, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

let bench: LtiBench;
beforeAll(async () => {
  bench = await startLtiBench({ gradebook: { pollMs: 50, firstRetryMs: 100, maxRetryMs: 400 } });
  // The course is linked to the exam's class by its instructor's first launch (course binding).
  const first = await walkLaunch(bench, "instructor-1");
  expect(first.launch.status).toBe(200);
});
afterAll(() => bench?.close());

const refusedCheck = () => bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1)?.obj.check;

/** Sends the guide's test of that `name` from the LMS and answers the tool's response to the launch. */
async function send(name: string) {
  const test = bench.lms.setCertificationTest(name)!;
  bench.stack.logger.lines.length = 0;
  const track = bench.stack.track();
  try {
    const { launch } = await walkLaunch(bench, test.userId);
    return { launch, check: launch.status >= 400 ? refusedCheck() : undefined, platformCalls: track() };
  } finally {
    bench.lms.setCertificationTest(undefined);
  }
}

describe('6.1.1 Known "Bad" Payloads: refused with a page for the administrator, nothing sent to the platform', () => {
  const BAD: [string, number, string][] = [
    ["No KID Sent in JWT header", 401, "kid"],
    ["Incorrect KID in JWT header", 401, "kid"],
    ["Wrong LTI Version", 400, "version"],
    ["No LTI Version", 400, "version"],
    ["Invalid LTI message", 401, "iss_missing"],
    ["Missing LTI Claims", 401, "sub_missing"],
    ["Timestamps Incorrect", 401, "exp"],
    ["messsage_type Claim Missing", 400, "message_type"],
    ["role Claim Missing", 400, "roles"],
    ["deployment_id Claim Missing", 400, "deployment_id_missing"],
    ["resource_link_id Claim Missing", 400, "resource_link"],
    ["user Claim Missing", 401, "sub_missing"],
  ];
  it.each(BAD)("%s is refused (%i, check %s)", async (name, status, check) => {
    const { launch, check: seen, platformCalls } = await send(name);
    expect(launch.status).toBe(status);
    expect(seen).toBe(check);
    expect(launch.text).toContain("For your LMS administrator");
    expect(platformCalls).toEqual([]);
  });

  it("No KID Sent in JWT header: refused even though the LMS's key set holds one key", async () => {
    const jwks = await request(bench.lms.url).get("/jwks");
    expect(jwks.body.keys).toHaveLength(1);
    const { launch, check } = await send("No KID Sent in JWT header");
    expect(check).toBe("kid");
    expect(launch.text).toContain("names no kid");
  });
});

const INSTRUCTOR_PAGE = "Cells";
const LEARNER_PAGE = "Your oral exam is ready";

describe("6.1.2 Valid Teacher Launches", () => {
  it.each([
    "Valid Instructor Launch", "Valid Instructor Launch with Roles", "Valid Instructor Launch Short Role",
    "Valid Instructor Launch Unknown Role", "Valid Instructor Launch Email Only", "Valid Instructor Launch Names Only",
    "Valid Instructor No PII", "Valid Instructor Email Without Context",
  ])("%s opens the instructor's page for the exam", async (name) => {
    const { launch } = await send(name);
    expect(launch.status).toBe(200);
    expect(launch.text).toContain(`<h1>${INSTRUCTOR_PAGE}</h1>`);
    expect(launch.text).not.toContain(LEARNER_PAGE);
  });

  it("Valid Instructor Launch No Role: a launch without a role is a learner's, who opens the exam", async () => {
    const { launch } = await send("Valid Instructor Launch No Role");
    expect(launch.status).toBe(200);
    expect(launch.text).toContain(LEARNER_PAGE);
    expect(launch.text).toContain("Ines Instructor");
  });
});

describe("6.1.3 Valid Student Launches", () => {
  it.each([
    "Valid Student Launch", "Valid Student Launch with Roles", "Valid Student Launch Short Role",
    "Valid Student Launch Unknown Role", "Valid Student Launch No Role",
  ])("%s opens the exam for the learner", async (name) => {
    const { launch } = await send(name);
    expect(launch.status).toBe(200);
    expect(launch.text).toContain(LEARNER_PAGE);
    expect(launch.text).toMatch(/href="[^"]*\/lti\/open\//);
  });

  // Refused by design (docs/lti.md, "Certification"): each page names the reason.
  it.each([
    ["Valid Student Launch Email Only", "student_fields_missing", /first name, last name/],
    ["Valid Student Launch Names Only", "email_missing", /did not share your e-mail address/],
    ["Valid Student No PII", "student_fields_missing", /e-mail address, first name, last name/],
    ["Valid Student Email Without Context", "course_binding", /without naming your course/],
  ] as const)("%s is refused by design with a page naming the reason (%s)", async (name, check, reason) => {
    const { launch, check: seen, platformCalls } = await send(name);
    expect(launch.status).toBeGreaterThanOrEqual(400);
    expect(seen).toBe(check);
    expect(launch.text).toMatch(reason);
    expect(launch.text).not.toMatch(/href="[^"]*\/lti\/open\//);
    expect(platformCalls).toEqual([]);
  });
});

describe("6.2 Deep Linking Message testing", () => {
  let examId: string;
  beforeAll(async () => { ({ examId } = await bench.stack.seedExam()); });

  it("Send the Request Payload: a deep-linking request opens the exam picker", async () => {
    const { launch } = await launchFromCourse(bench, "instructor-1", bench.lms.openDeepLinking({}));
    expect(launch.status).toBe(200);
    expect(launch.text).toMatch(/name="pick" value="[^"]+"/);
  });

  it("Receive the Response Payload, Response Format Valid, Response Timestamps Valid, Signature Valid, Required Claims Verified, Affirm Response: the LMS verifies the tool's response and places the exam", async () => {
    const linkId = await placeExam(bench, examId);
    const back = bench.lms.deepLinkReturns.at(-1)!;
    if (!back.ok) throw new Error(`the LMS refused the response: ${back.error}`);
    expect(back.links[0]).toMatchObject({ id: linkId, custom: { exam_id: examId } });
  });
});

describe("6.3 Names and Role Provisioning Services Testing", () => {
  it("Received Request, Verify Bearer Token, Verify Bearer Scope: the tool reads the course's roster through NRPS with its own access token", async () => {
    const { launch, launchUrl, cookie } = await launchFromCourse(bench, "instructor-1", bench.linkId);
    const decode = (t: string) => t.replace(/&amp;/g, "&");
    const action = new URL(decode(/<form id="prepare-course" method="post" action="([^"]+)"/.exec(launch.text)?.[1] ?? ""), launchUrl);
    const form = /name="form" value="([^"]+)"/.exec(launch.text)?.[1];
    const pages = bench.lms.membershipCounts.pages;
    // From the instructor's browser: the form is bound to the launch's LTI cookie.
    const answer = await request(action.origin).post(action.pathname).set("Cookie", cookie ?? "").type("form").send({ form, startAt: new Date(Date.now() + 60_000).toISOString(), tzOffsetMin: "0" });
    expect(answer.status).toBe(200);
    expect(bench.lms.membershipCounts.pages).toBeGreaterThan(pages);
  });
});

describe("6.4 Assignment and Grade Services Testing", () => {
  it("Valid Instructor Launch (the guide's name; a learner's launch with the AGS claim): reaching the exam posts Started to the link's line item, the return posts Submitted", async () => {
    const { examId } = await bench.stack.seedExam();
    const linkId = await placeExam(bench, examId);
    const launched = await launchFromCourse(bench, "student-1", linkId);
    const { opened } = await followToExam(launched);
    expect(opened.status).toBe(303);
    const sub = String(decodeJwt(launched.idToken).sub);
    const item = bench.lms.lineItems.find((i) => i.resourceId === examId)!;
    const mine = () => bench.lms.scores.filter((s) => s.userId === sub && s.lineItemId.includes(`/lineitems/${item.id}`));
    await vi.waitFor(() => expect(mine()).toHaveLength(1), { timeout: 20_000, interval: 50 });
    expect(mine()[0]).toMatchObject({ activityProgress: "Started" });
    const mark = (opened.headers["set-cookie"] as unknown as string[]).find((c) => c.startsWith("eoa_lti_return="))!.split(";")[0]!;
    expect((await request(bench.stack.app.url).get("/oral/lti/return").set("Cookie", mark)).status).toBe(200);
    await vi.waitFor(() => expect(mine()).toHaveLength(2), { timeout: 20_000, interval: 50 });
    expect(mine()[1]).toMatchObject({ activityProgress: "Submitted", gradingProgress: "PendingManual" });
  });
});

describe("an LMS key rotated to a new kid (issue 44.1)", () => {
  it("verifies the second of two launches on either side of the rotation, inside the key set's cooldown", async () => {
    // A bench of its own: its first launch is the key set's first fetch, so the second comes inside the cooldown (30 s).
    const own = await startLtiBench();
    try {
      expect((await walkLaunch(own, "instructor-1")).launch.status).toBe(200);
      expect(own.lms.jwksFetches).toBe(1);
      await own.lms.rotateKey(true);
      const { launch } = await walkLaunch(own, "student-1");
      expect(launch.status, launch.text.slice(0, 400)).toBe(200);
      expect(own.lms.jwksFetches).toBe(2);
    } finally {
      await own.close();
    }
  });
});

it("the emulator's certification table lists the guide's tests under its sections (12 bad payloads, 9 teacher, 9 student)", () => {
  const count = (section: string) => CERTIFICATION_LAUNCHES.filter((t) => t.section === section).length;
  expect([count("6.1.1"), count("6.1.2"), count("6.1.3")]).toEqual([12, 9, 9]);
  expect(certificationLaunch("user Claim Missing").section).toBe("6.1.1");
  expect(certificationLaunch("Valid Student Email Without Context")).toMatchObject({ section: "6.1.3", description: "Launch Student With Email No Context" });
});
