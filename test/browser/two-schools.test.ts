/**
 * The example app's two schools in a real browser: each school's dashboard names its
 * school and lists its own courses only; a student's page names their school.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { SCHOOLS } from "../../example-app/schools.js";
import { screenshot, STEP_MS } from "../support/chromium.js";
import { ARTIFACTS, BROWSER_PASSWORD, chromiumOrSkip, logInTab, openTab, useExampleAppInBrowser } from "../support/example-app-browser.js";

const haveChromium = chromiumOrSkip();

describe.runIf(haveChromium)("the example app in a browser", () => {
  const running = useExampleAppInBrowser();

  it("each school's dashboard names its school and lists its own courses only; a student's page names their school", async () => {
    const courseOf = async (instructor: string, name: string) => {
      const agent = request.agent(running.base);
      expect((await agent.post("/login").type("form").send({ username: instructor, password: BROWSER_PASSWORD })).status).toBe(303);
      expect((await agent.post("/oral/courses").send({ name })).status).toBe(201);
    };
    await courseOf("instructor", "North Algebra");
    await courseOf("professor", "South Poetry");

    for (const [username, school, own, other] of [
      ["instructor", "north", "North Algebra", "South Poetry"],
      ["professor", "south", "South Poetry", "North Algebra"],
    ] as const) {
      const { context: schoolContext, tab } = await openTab(running.browser, { viewport: { width: 1280, height: 900 } });
      try {
        await logInTab(tab, running.base, username, `${running.base}/dashboard`);
        await tab.waitForSelector(`.course-name:has-text("${own}")`);
        expect(await tab.textContent("#school")).toBe(SCHOOLS.find((s) => s.id === school)!.name);
        expect(await tab.locator(`.course-name:has-text("${other}")`).count()).toBe(0);
        await screenshot(tab, `${ARTIFACTS}/dashboard-${school}.png`, { fullPage: true });
      } finally {
        await schoolContext.close();
      }
    }

    const { context: student, tab } = await openTab(running.browser);
    try {
      await logInTab(tab, running.base, "sam", `${running.base}/student`);
      await tab.waitForSelector("#school:has-text('South College')");
      expect(await tab.title()).toBe("South College · My oral exams");
    } finally {
      await student.close();
    }
  }, 4 * STEP_MS);
});
