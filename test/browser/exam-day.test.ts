/**
 * The dashboard's Exam day panel in a real browser (Debian's Chromium driven by
 * playwright-core): the instructor creates an exam through the dashboard and opens its
 * panel; while it stays open, one enrolled student reaches the exam and a student on no
 * roster is refused, each in their own browser (and the instructor too, trying the link); the panel's counts and its launch record
 * table follow over Server-Sent Events, without a reload. Readable at 390 and 1280 px.
 *
 * Screenshots go to test-artifacts/ (gitignored) for a person to look at.
 */
import { existsSync, mkdirSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoUsers } from "../../example-app/users.js";
import { newContext, screenshot, STEP_MS } from "../support/chromium.js";
import { CHROMIUM, startExampleAppInBrowser, type ExampleAppInBrowser } from "../support/example-app-browser.js";

const ARTIFACTS = process.env.EXAMDAY_SHOTS ?? "test-artifacts";
const haveChromium = existsSync(CHROMIUM);
const PASSWORD = "exam-day-password";

// The example app's other browser tests warn loudly (or fail in CI) when Chromium is missing
// (chromiumOrSkip in ../support/example-app-browser.ts); this file only skips.
describe.runIf(haveChromium)("the Exam day panel in a browser", () => {
  const users = createDemoUsers({ password: PASSWORD });
  let running: ExampleAppInBrowser | undefined;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    running = await startExampleAppInBrowser(users);
    ({ base, browser } = running);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await running?.close();
  });

  /** A new browser (its own cookies) logged in as `username`. */
  async function browserAs(username: string, width = 1280): Promise<Page> {
    const context = await newContext(browser, { viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.fill("#username", username);
    await page.fill("#password", PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click("form.login button[type=submit]")]);
    return page;
  }

  async function submit(page: Page, form: string, done: string): Promise<void> {
    await page.click(`${form} button[type=submit]`);
    await page.waitForSelector(`${form} .form-status:has-text("${done}")`);
  }

  it("shows each student's outcome and the counts as they happen, over SSE", async () => {
    const page = await browserAs("instructor");
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    await page.waitForSelector("#tree >> text=No courses yet");
    await page.fill("#course-name", "History 201");
    await submit(page, "#course-form", "Created course");
    await page.fill("#class-name", "Group B");
    await submit(page, "#class-form", "Created class");
    await page.fill("#assessment-name", "The French Revolution, oral");
    await page.fill("#assessment-questions", "Why 1789?");
    await submit(page, "#assessment-form", "Created assessment");
    const item = page.locator("li.assessment", { hasText: "The French Revolution, oral" });
    const launchUrl = await item.locator("input.launch-link").inputValue();

    // The panel, closed until asked for; open, it connects and shows an exam nobody launched yet.
    const panel = item.locator("details.exam-day");
    expect(await panel.getAttribute("open")).toBeNull();
    await panel.locator("summary", { hasText: "Exam day" }).click();
    await panel.locator(".live-status", { hasText: "Live · updated" }).waitFor();
    const count = (name: string) => panel.locator(`[data-count="${name}"]`);
    await expect.poll(() => count("launched").textContent()).toBe("0");
    // The launch record is read after the first snapshot.
    await panel.locator("table.record tbody", { hasText: "No launches yet" }).waitFor();
    // The bars are labelled: found by their label, as a screen reader announces them.
    expect(await page.getByLabel("Students launched").getAttribute("max")).toBe("2"); // Ana and Ben are on the roster
    expect(await page.getByLabel("Sign-in tokens prepared").count()).toBe(1);
    // The budget line: the key's 600 calls a minute.
    expect(await panel.locator("line[data-budget]").getAttribute("data-budget")).toBe("600");
    // A mark on the page: still there at the end, so the updates came without a reload.
    await page.evaluate("window.examDayMark = true");

    // Two students, each in their own browser: Ana reaches the exam, the outsider is refused.
    const ana = await browserAs("ana");
    await ana.goto(launchUrl);
    await ana.waitForSelector("text=Signed in as Ana Lima");
    const outsider = await browserAs("outsider");
    const refused = await outsider.goto(launchUrl);
    expect(refused?.status()).toBe(403);
    // And the instructor trying the link in a tab of their own (the README's step 2): on no roster either.
    const tab = await page.context().newPage();
    expect((await tab.goto(launchUrl))?.status()).toBe(403);
    await tab.close();

    await expect.poll(() => count("launched").textContent(), { timeout: STEP_MS }).toBe("1");
    await expect.poll(() => count("refused").textContent(), { timeout: STEP_MS }).toBe("2");
    expect(await count("waiting").textContent()).toBe("0");
    expect(await count("failed").textContent()).toBe("0");
    const row = (email: string) => panel.locator("table.record tbody tr", { has: page.locator(`th:has-text("${email}")`) });
    await row("ana.lima@example.edu").waitFor();
    expect(await row("ana.lima@example.edu").locator("td").first().textContent()).toContain("Reached the exam");
    await row("olly.outsider@example.edu").waitFor();
    expect(await row("olly.outsider@example.edu").locator("td").first().textContent()).toContain("Refused: not on the class roster");
    await row("ines.moreau@example.edu").waitFor();
    expect(await row("ines.moreau@example.edu").locator("td").first().textContent()).toContain("Refused: not on the class roster");
    expect(await page.getByLabel("Students launched").getAttribute("value")).toBe("1");
    // Out of the roster's two: the outsider and the instructor, refused, are not on it.
    expect(await page.getByLabel("Students launched").getAttribute("max")).toBe("2");
    // The chart's bars (one a minute; the launches may straddle two) count the three launches.
    const charted = async () => {
      const counts = await Promise.all((await panel.locator("rect[data-count]").all()).map((bar) => bar.getAttribute("data-count")));
      return counts.reduce((sum, n) => sum + Number(n), 0);
    };
    await expect.poll(charted).toBe(3);
    expect(await panel.locator("table.record thead th").allTextContents()).toEqual(["Student", "Outcome", "Last launch", "Launches", "Served by"]);
    expect(await page.evaluate("window.examDayMark")).toBe(true);

    await screenshot(panel, `${ARTIFACTS}/examday-1280.png`);
    await screenshot(page, `${ARTIFACTS}/examday-page-1280.png`, { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    // The chart is drawn again at the panel's new width (its text at its own size, not scaled down).
    await expect.poll(async () => Number(await panel.locator("svg.chart-svg").getAttribute("width"))).toBeLessThan(390);
    // At 390 px nothing pokes out of the page sideways.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot(panel, `${ARTIFACTS}/examday-390.png`);

    // Closed, the panel lets go of its stream.
    await panel.locator("summary").click();
    expect(await panel.getAttribute("open")).toBeNull();
  }, 4 * STEP_MS);
});
