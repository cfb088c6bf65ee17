/**
 * The example app's LMS (example-app/lms.js, started by server.js), over real HTTP as a
 * browser walks it with cookies: the instructor creates an exam on the dashboard, opens
 * the LMS's *Add an oral exam*, picks the exam in the tool's picker and the LMS records
 * the placed link; a student opens the course, clicks the link and lands on North High's
 * exam page, signed in as the LMS's student. Every hop is read from the page before it
 * (the course page's frame, each auto-posted form), not built by the test. The app loads
 * the package by its name (dist/).
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "express-oral-assessments/emulator";
import { startExampleLms, type ExampleLms } from "../../example-app/lms.js";
import { createDemoUsers } from "../../example-app/users.js";
import { PASSWORD, startExampleApp, type RunningExampleApp } from "../support/example-app.js";
import { formFields } from "../support/lti.js";

let running: RunningExampleApp;
let emulator: Emulator;
let lms: ExampleLms;
let base: string;

beforeAll(async () => {
  lms = await startExampleLms({ school: "north" });
  running = await startExampleApp(createDemoUsers({ password: PASSWORD }), { app: { lms } });
  ({ emulator, base } = running);
  lms.lms.registerTool(`${base}/oral`);
});

afterAll(async () => {
  await running?.close();
  await lms?.lms.close();
});

const decode = (text: string) => text.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))).replace(/&amp;/g, "&");
const attribute = (html: string, pattern: RegExp): string => {
  const found = pattern.exec(html)?.[1];
  if (found === undefined) throw new Error(`${pattern} not found in:\n${html.slice(0, 600)}`);
  return decode(found);
};

async function get(url: string, cookie?: string) {
  const u = new URL(url);
  const r = request(u.origin).get(u.pathname + u.search);
  return cookie ? r.set("Cookie", cookie) : r;
}

/** Submits the page's auto-posting form, as its script does. */
async function submitForm(html: string, pageUrl: string, cookie?: string) {
  const action = new URL(attribute(html, /<form[^>]*action="([^"]+)"/), pageUrl);
  const r = request(action.origin).post(action.pathname + action.search).type("form").send(formFields(html));
  return { response: await (cookie ? r.set("Cookie", cookie) : r), url: action.href };
}

/**
 * The tool's frame on an LMS course page: its first document auto-posts the login to the
 * tool, which sends the browser to the LMS's authorization endpoint, whose page
 * auto-posts the id_token to the tool's launch (with the state cookie: HTTP has no
 * third-party cookie blocking; the Chromium tests cover Platform Storage).
 */
async function launchFrom(launchUrl: string) {
  const first = await get(launchUrl);
  expect(first.status).toBe(200);
  const login = await submitForm(first.text, launchUrl);
  const cookie = (login.response.headers["set-cookie"] as unknown as string[] | undefined)?.[0]?.split(";")[0];
  // Framed, the LMS offers Platform Storage: the login answers a page that stores the
  // state's secret in the LMS's frame, then continues to the authorization URL.
  const next = login.response.status === 302 ? login.response.headers.location! : attribute(login.response.text, /id="next" href="([^"]+)"/);
  const authUrl = new URL(next, login.url).href;
  const auth = await get(authUrl);
  expect(auth.status, auth.text).toBe(200);
  return { ...(await submitForm(auth.text, authUrl, cookie)), cookie };
}

describe("the example app's LMS", () => {
  it("places an exam from the instructor's Add an oral exam, and a student's click lands on North High's exam page", async () => {
    // The walk's steps 1-2: the instructor's exam on the dashboard.
    const instructor = request.agent(base);
    expect((await instructor.post("/login").type("form").send({ username: "instructor", password: PASSWORD })).status).toBe(303);
    const course = await instructor.post("/oral/courses").send({ name: "Biology" });
    const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`).send({ name: "Group A", startDate: "2026-09-01", endDate: "2027-06-30" });
    const exam = await instructor.post("/oral/oral-assessments").send({ name: "Cells", classId: cls.body.data._id, questions: [{ text: "What is a cell?" }] });
    expect(exam.status).toBe(201);
    const examId = exam.body.data._id as string;

    // Open the LMS as its instructor: Add an oral exam.
    const home = await get(lms.lms.courseUrl());
    expect(home.text).toContain("Nothing placed yet");
    const addUrl = new URL(attribute(home.text, /id="add-exam" href="([^"]+)"/), lms.lms.url).href;
    const added = await get(addUrl);
    expect(added.status).toBe(303);
    const framing = await get(new URL(added.headers.location!, addUrl).href);
    const picker = await launchFrom(new URL(attribute(framing.text, /name="tool_content"[^>]*src="([^"]+)"/), lms.lms.url).href);
    expect(picker.response.status).toBe(200);
    expect(picker.response.text).toContain(`value="${examId}"`);

    // Pick it: the tool answers a form posting its signed response back to the LMS.
    const pick = attribute(picker.response.text, /name="pick" value="([^"]+)"/);
    const action = new URL(attribute(picker.response.text, /<form[^>]*action="([^"]+)"/), picker.url);
    const chosen = await request(action.origin).post(action.pathname).type("form").send({ pick, examId });
    expect(chosen.status).toBe(200);
    const back = await submitForm(chosen.text, action.href);
    expect(back.response.status, back.response.text).toBe(200);
    expect(back.response.text).toContain("Added to the course");
    const placed = lms.lms.deepLinkReturns.at(-1)!;
    if (!placed.ok) throw new Error(placed.error);
    expect(placed.links[0]!.custom).toEqual({ exam_id: examId });

    // Back as the instructor, open the placed link: Prepare this exam for the course. (The
    // LMS's roster cut to 5 members so the sign-ins are ready within the test's time.)
    lms.lms.setRoster({ size: 5 });
    const instructorHome = await get(lms.lms.courseUrl("instructor-1"));
    const instructorPage = await get(new URL(attribute(instructorHome.text, new RegExp(`id="${placed.links[0]!.id}" href="([^"]+)"`)), lms.lms.url).href);
    const opening = await launchFrom(new URL(attribute(instructorPage.text, /id="launch" href="([^"]+)"/), lms.lms.url).href);
    expect(opening.response.status, opening.response.text).toBe(200);
    const prepareAt = new URL(decode(attribute(opening.response.text, /<form id="prepare-course" method="post" action="([^"]+)"/)), opening.url);
    // From the browser that launched (its LTI cookie): the form is bound to it.
    const prepared = await request(prepareAt.origin).post(prepareAt.pathname).type("form").set("Cookie", opening.cookie ?? "")
      .send({ form: attribute(opening.response.text, /name="form" value="([^"]+)"/), startAt: new Date(Date.now() + 20_000).toISOString(), tzOffsetMin: "0" });
    expect(prepared.status, prepared.text).toBe(200);
    expect(prepared.text).toContain('id="p-roster">4<');
    const progressUrl = new URL(decode(attribute(prepared.text, /id="progress-link" href="([^"]+)"/)));
    for (let end = Date.now() + 20_000; Date.now() < end;) {
      if ((await get(progressUrl.href)).text.includes('id="p-ready">4<')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await get(progressUrl.href)).text).toContain('id="p-ready">4<');
    const signInsBefore = emulator.requests.filter((r) => r.path === "/students/sign-in-token").length;

    // As a student: the course lists the exam; its page opens the launch in a new window
    // (as the tool asked), which goes straight on to the exam link, then the exam page.
    const studentHome = await get(lms.lms.courseUrl("student-1"));
    expect(studentHome.text).not.toContain("Add an oral exam");
    const coursePage = await get(new URL(attribute(studentHome.text, new RegExp(`id="${placed.links[0]!.id}" href="([^"]+)"`)), lms.lms.url).href);
    const launched = await launchFrom(new URL(attribute(coursePage.text, /id="launch" href="([^"]+)"/), lms.lms.url).href);
    expect(launched.response.status, launched.response.text).toBe(303);
    const link = new URL(launched.response.headers.location!, launched.url);
    expect(link.pathname).toMatch(new RegExp(`^/oral/lti/open/${examId}/`));
    const opened = await get(link.href);
    expect(opened.status, opened.text).toBe(303);
    const examPage = new URL(opened.headers.location!);
    expect(examPage.origin + examPage.pathname).toBe(`${emulator.organization("north").examHost}/exam/${examId}`);
    const page = await get(examPage.href);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Signed in as Sam Student");
    // Prepared: Sam's launch asked the platform for no sign-in.
    expect(emulator.requests.filter((r) => r.path === "/students/sign-in-token").length).toBe(signInsBefore);
    // And the LMS's gradebook shows Sam as started (the outbox posts it off the launch's path: polled).
    for (const deadline = Date.now() + 20_000; Date.now() < deadline && !lms.lms.scores.some((x) => x.userId === "student-1"); ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Found as the instructor would: the course page's Gradebook link.
    const gradebook = await get(new URL(attribute((await get(lms.lms.courseUrl("instructor-1"))).text, /id="gradebook" href="([^"]+)"/), lms.lms.url).href);
    expect(gradebook.status).toBe(200);
    const samRow = /<tr data-user="student-1">.*?<\/tr>/s.exec(gradebook.text)?.[0] ?? "";
    expect(samRow, gradebook.text).toContain("Sam Student");
    expect(samRow).toContain('data-activity="Started"');
  });
});
