/**
 * The example app in a real browser: an enrolled student who opens the launch link signed
 * out reaches the exam right after logging in (the login form's redirect chain no longer
 * ends blocked by its form-action 'self'), with one sign-in token, and Back from the exam
 * costs no second one.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { screenshot, STEP_MS } from "../support/chromium.js";
import { ARTIFACTS, BROWSER_PASSWORD, chromiumOrSkip, openTab, useExampleAppInBrowser } from "../support/example-app-browser.js";

const haveChromium = chromiumOrSkip();

describe.runIf(haveChromium)("the example app in a browser", () => {
  const running = useExampleAppInBrowser();

  it("an enrolled student who opens the launch link signed out, then logs in, lands on the exam signed in (one token, and Back costs none)", async () => {
    // The exam, made through the instructor API (the dashboard is covered in dashboard-to-exam.test.ts).
    const instructor = request.agent(running.base);
    expect((await instructor.post("/login").type("form").send({ username: "instructor", password: BROWSER_PASSWORD })).status).toBe(303);
    const course = await instructor.post("/oral/courses").send({ name: "Signed-out course" });
    const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`)
      .send({ name: "Group S", startDate: "2026-09-01", endDate: "2026-12-20" });
    const exam = await instructor.post("/oral/oral-assessments")
      .send({ name: "Signed-out oral", classId: cls.body.data._id, questions: [{ text: "Why?" }] });
    expect(exam.status).toBe(201);
    const examId: string = exam.body.data._id;

    const { context: student, tab } = await openTab(running.browser);
    const cspViolations: string[] = [];
    tab.on("console", (message) => { if (/Content Security Policy|form-action/i.test(message.text())) cspViolations.push(message.text()); });
    try {
      const signInCalls = () => running.emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).length;
      const before = signInCalls();

      await tab.goto(`${running.base}/oral/launch/${examId}`);
      expect(new URL(tab.url()).pathname).toBe("/login");
      expect(signInCalls()).toBe(before); // nobody is signed in yet: no token asked for

      await tab.fill("#username", "ben");
      await tab.fill("#password", BROWSER_PASSWORD);
      await tab.click("form.login button[type=submit]");
      // The form's redirect chain used to end on the exam host and be blocked by the
      // login page's form-action 'self', leaving the student on the filled-in form.
      await tab.waitForSelector("text=Signed in as Ben Okafor");
      expect(new URL(tab.url()).origin).toBe(running.emulator.examHost);
      expect(new URL(tab.url()).pathname).toBe(`/exam/${examId}`);
      expect(await tab.textContent("h1")).toBe("Signed-out oral");
      expect(signInCalls() - before).toBe(1); // exactly one token, and it was used
      expect(cspViolations).toEqual([]);
      await screenshot(tab, `${ARTIFACTS}/signed-out-launch.png`, { fullPage: true });

      // Back from the exam returns to the login page's history entry: the signed-in
      // student goes to their own page, not on to the launch link (no second token).
      await tab.goBack();
      await tab.waitForURL(`${running.base}/student`);
      await tab.locator(`li.exam[data-exam-id="${examId}"]`).waitFor();
      expect(signInCalls() - before).toBe(1);
      await screenshot(tab, `${ARTIFACTS}/back-after-launch.png`, { fullPage: true });
    } finally {
      await student.close();
    }
  }, 4 * STEP_MS);
});
