/**
 * The README's "A first walk through the example app", steps 1–7, in a real browser
 * (Debian's Chromium), logging out with the page's own **Log out** button at every step
 * the README says to, including on the router's 403 and 404 pages drawn in the app's
 * layout. Those pages once sent `Referrer-Policy: no-referrer`, so the browser posted the
 * logout form with `Origin: null` and the app's CSRF check refused it: the walk stopped at
 * step 5. It ends where the README says step 7 ends: South College's student on *Exam not
 * found*, and logs out from there too. (Step 8, the LMS, is walked by prepare-course.test.ts
 * and gradebook.test.ts.)
 *
 * The page titles the README quotes are read from README.md, so the walk and the README
 * cannot drift apart unnoticed. Screenshots go to test-artifacts/.
 */
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { screenshot, STEP_MS } from "../support/chromium.js";
import { ARTIFACTS, BROWSER_PASSWORD, chromiumOrSkip, openTab, useExampleAppInBrowser } from "../support/example-app-browser.js";

const haveChromium = chromiumOrSkip();
/** README.md with its line breaks as spaces (a quoted title may wrap). */
const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8").replace(/\s+/g, " ");

/** A title the README's walk quotes in italics, checked to be there (the walk follows the README). */
function quoted(title: string): string {
  expect(README, `README.md no longer quotes *${title}*`).toContain(`*${title}*`);
  return title;
}

describe.runIf(haveChromium)("the README's walk in a browser", () => {
  const running = useExampleAppInBrowser();

  it("steps 1–7, logging out at every step the README says, on the router's 403 and 404 pages too", async () => {
    const { context, tab: page } = await openTab(running.browser, { viewport: { width: 1280, height: 900 } });
    const base = running.base;
    const logIn = async (username: string, arrivesAt: string) => {
      if (!page.url().startsWith(`${base}/login`)) await page.goto(`${base}/login`);
      await page.fill("#username", username);
      await page.fill("#password", BROWSER_PASSWORD);
      await Promise.all([page.waitForURL(`${base}${arrivesAt}`), page.click("form.login button[type=submit]")]);
    };
    /** The page's own Log out button; the app answers 303 to /login (a refusal would be a plain-text 403). */
    const logOut = async (where: string) => {
      const answer = page.waitForResponse((r) => r.url() === `${base}/logout` && r.request().method() === "POST");
      await page.click("#logout");
      const status = (await answer).status();
      expect(status, `Log out on ${where}: ${status === 403 ? await page.textContent("body") : ""}`).toBe(303);
      await page.waitForURL(`${base}/login`);
    };
    const submit = async (form: string, done: string) => {
      await page.click(`${form} button[type=submit]`);
      await page.waitForSelector(`${form} .form-status:has-text("${done}")`);
    };
    try {
      // 1. The instructor dashboard.
      await page.goto(base);
      await logIn("instructor", "/dashboard");
      await page.waitForSelector("#tree >> text=No courses yet");

      // 2. A course, a class and an assessment; "Open" as the instructor explains the link is for students.
      await page.fill("#course-name", "Biology 101");
      await submit("#course-form", "Created course");
      await page.fill("#class-name", "Group A");
      await page.waitForSelector('#class-course option:has-text("Biology 101")', { state: "attached" });
      await submit("#class-form", "Created class");
      await page.fill("#assessment-name", "Cell biology oral");
      await page.waitForSelector('#assessment-class option:has-text("Group A")', { state: "attached" });
      await page.fill("#assessment-questions", "Explain osmosis.\n");
      await submit("#assessment-form", "Created assessment");
      const item = page.locator("li.assessment", { hasText: "Cell biology oral" });
      // 3. Copy the link.
      const launchUrl = await item.locator("input.launch-link").inputValue();
      expect(launchUrl).toMatch(new RegExp(`^${base}/oral/launch/`));
      expect((await page.goto(launchUrl))?.status()).toBe(403);
      expect(await page.textContent("h1")).toBe("This launch link is for students");
      await page.goBack();

      // 4. Log out; Ana launches and lands on the exam page; Back returns to My oral exams.
      await page.waitForSelector("#logout");
      await logOut("the dashboard");
      await logIn("ana", "/student");
      await page.locator("li.exam", { hasText: "Cell biology oral" }).locator("a", { hasText: "Launch" }).click();
      await page.waitForSelector(`text=${quoted("Signed in as Ana Lima")}`);
      await page.goBack();
      await page.waitForURL(`${base}/student`);

      // 5. Log out; the outsider pastes the link: the router's 403 page in the app's layout.
      await logOut("My oral exams");
      await logIn("outsider", "/student");
      expect((await page.goto(launchUrl))?.status()).toBe(403);
      expect(await page.textContent("h1")).toBe(quoted("You cannot take this exam"));
      await screenshot(page, `${ARTIFACTS}/readme-walk-403.png`, { fullPage: true });

      // 6. Log out (from the 403 page); the instructor's Exam day lists Ana and the outsider.
      await logOut("the router's 403 page");
      await logIn("instructor", "/dashboard");
      const panel = page.locator("li.assessment", { hasText: "Cell biology oral" }).locator("details.exam-day");
      await panel.locator("summary", { hasText: "Exam day" }).click();
      const outcome = (email: string) => panel.locator("table.record tbody tr", { has: page.locator(`th:has-text("${email}")`) }).locator("td").first();
      await expect.poll(() => outcome("ana.lima@example.edu").textContent({ timeout: 1_000 }).catch(() => ""), { timeout: STEP_MS })
        .toContain(quoted("Reached the exam"));
      expect(await outcome("olly.outsider@example.edu").textContent()).toContain(quoted("Refused: not on the class roster"));

      // 7. Log out; South College's student pastes the link: the 404 page. And logs out from it.
      await logOut("the dashboard");
      await logIn("sam", "/student");
      expect((await page.goto(launchUrl))?.status()).toBe(404);
      expect(await page.textContent("h1")).toBe(quoted("Exam not found"));
      await screenshot(page, `${ARTIFACTS}/readme-walk-404.png`, { fullPage: true });
      await logOut("the router's 404 page");
      await expectSignedOut(page, base);
    } finally {
      await context.close();
    }
  }, 5 * STEP_MS);
});

/** Signed out for real: a page of the app asks for a login again. */
async function expectSignedOut(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/student`);
  expect(new URL(page.url()).pathname).toBe("/login");
}
