/**
 * A phone's width (390 px) in a real browser: no page of the example app and no router
 * page drawn in its layout is wider than the screen (nothing to scroll sideways), and
 * "Log out" stays on one line. Screenshots of each page go to
 * test-artifacts/narrow-*.png for a person to look at.
 */
import request from "supertest";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, STEP_MS } from "../support/chromium.js";
import { ARTIFACTS, BROWSER_PASSWORD, chromiumOrSkip, logInTab, openTab, useExampleAppInBrowser } from "../support/example-app-browser.js";

const haveChromium = chromiumOrSkip();
const PHONE = { width: 390, height: 844 };

/** How the page fits: its scroll width, and whether "Log out" (when there) takes more than one line. */
async function fit(page: Page): Promise<{ scrollWidth: number; logoutLines: number | undefined }> {
  // A string: the test's TypeScript has no DOM types; it runs in the page.
  return page.evaluate(`(() => {
    const logout = document.querySelector("#logout");
    const lines = logout ? Math.round(logout.getBoundingClientRect().height / parseFloat(getComputedStyle(logout).lineHeight || "20")) : undefined;
    return { scrollWidth: document.documentElement.scrollWidth, logoutLines: lines };
  })()`);
}

describe.runIf(haveChromium)("the example app at 390 px", () => {
  const running = useExampleAppInBrowser();

  it("no page is wider than the screen, and Log out stays on one line", async () => {
    // An exam to show, with long names (the longest a real school has), made through the API.
    const agent = request.agent(running.base);
    await agent.post("/login").type("form").send({ username: "instructor", password: BROWSER_PASSWORD }).expect(303);
    const course = (await agent.post("/oral/courses").send({ name: "Introductory Molecular and Cellular Biology (autumn term)" }).expect(201)).body.data._id;
    const classId = (await agent.post(`/oral/courses/${course}/classes`).send({ name: "Group A, Tuesday and Thursday mornings" }).expect(201)).body.data._id;
    const examId = (await agent.post("/oral/oral-assessments").send({ name: "Cell biology: osmosis, diffusion and membrane transport", classId }).expect(201)).body.data._id;
    const launchUrl = `${running.base}/oral/launch/${examId}`;

    const seen: { name: string; scrollWidth: number; logoutLines: number | undefined }[] = [];
    const look = async (page: Page, name: string) => {
      await screenshot(page, `${ARTIFACTS}/narrow-${name}.png`, { fullPage: true });
      seen.push({ name, ...(await fit(page)) });
    };
    const visit = async (username: string | undefined, pages: [string, string][]) => {
      const { context, tab } = await openTab(running.browser, { viewport: PHONE });
      try {
        if (username) await logInTab(tab, running.base, username);
        for (const [name, url] of pages) {
          await tab.goto(url);
          await tab.waitForLoadState("networkidle");
          await look(tab, name);
        }
      } finally {
        await context.close();
      }
    };
    await visit(undefined, [["login", `${running.base}/login`]]);
    await visit("instructor", [["dashboard", `${running.base}/dashboard`], ["instructor-403", launchUrl]]);
    await visit("ana", [["student", `${running.base}/student`]]);
    await visit("outsider", [["router-403", launchUrl]]);
    await visit("sam", [["router-404", launchUrl]]);

    const tooWide = seen.filter((s) => s.scrollWidth > PHONE.width);
    expect(tooWide, `pages wider than ${PHONE.width} px: ${JSON.stringify(tooWide)}`).toEqual([]);
    const wrapped = seen.filter((s) => s.logoutLines !== undefined && s.logoutLines > 1);
    expect(wrapped, `"Log out" on more than one line: ${JSON.stringify(wrapped)}`).toEqual([]);
    expect(seen.filter((s) => s.logoutLines !== undefined).map((s) => s.name)).toEqual(["dashboard", "instructor-403", "student", "router-403", "router-404"]);
  }, 4 * STEP_MS);
});
