/**
 * The whole product in a real browser (Debian's Chromium driven by playwright-core): an
 * instructor creates a course, a class and an assessment through the dashboard (a field's
 * error placed at it, the button busy while a call is in flight, rename and delete); an
 * enrolled student launches it and lands on the exam page signed in; the one-time ticket
 * cannot be used twice; the outsider arriving signed out by the launch link gets the 403
 * page in the app's layout, with "Log out" and a way home.
 *
 * Screenshots go to test-artifacts/ (gitignored) for a person to look at.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot, STEP_MS } from "../support/chromium.js";
import { ARTIFACTS, BROWSER_PASSWORD, chromiumOrSkip, openTab, useExampleAppInBrowser } from "../support/example-app-browser.js";

const haveChromium = chromiumOrSkip();

describe.runIf(haveChromium)("the example app in a browser", () => {
  const running = useExampleAppInBrowser();
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ({ context, tab: page } = await openTab(running.browser, { viewport: { width: 1280, height: 900 } }));
  });

  afterAll(async () => {
    await context?.close();
  });

  async function logIn(username: string): Promise<void> {
    if (!page.url().includes("/login")) await page.goto(`${running.base}/login`);
    await page.fill("#username", username);
    await page.fill("#password", BROWSER_PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click("form.login button[type=submit]")]);
  }

  async function logOut(): Promise<void> {
    await Promise.all([page.waitForURL(`${running.base}/login`), page.click("#logout")]);
  }

  /** Submits a form and returns its status line (success), failing with what the form shows instead. */
  async function submitAndWait(form: string): Promise<string> {
    await page.click(`${form} button[type=submit]`);
    await page.locator(`${form} .form-status:not(:empty), ${form} .form-error:not(:empty), ${form} .field-error:not(:empty)`).first().waitFor();
    const errors = (await page.locator(`${form} .form-error, ${form} .field-error`).allTextContents()).join(" ").trim();
    expect(errors, `${form} shows an error`).toBe("");
    return (await page.textContent(`${form} .form-status`)) ?? "";
  }

  it("instructor → course, class, assessment; student launches once; the outsider gets 403", async () => {
    // --- the instructor ---------------------------------------------------------------
    await page.goto(running.base);
    expect(new URL(page.url()).pathname).toBe("/login");
    await logIn("instructor");
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    await page.waitForSelector("#tree >> text=No courses yet");
    await expect(page.textContent("#me")).resolves.toContain("Ines Moreau");
    await expect(page.textContent("#school")).resolves.toBe("North High");

    // A problem+json error is shown next to the field it names.
    await page.click("#course-form button[type=submit]");
    await page.waitForSelector('#course-form .field-error[data-for="name"]:not(:empty)');
    expect(await page.textContent('#course-form .field-error[data-for="name"]')).toContain("must not be empty");
    expect(await page.getAttribute("#course-name", "aria-invalid")).toBe("true");
    await screenshot(page, `${ARTIFACTS}/dashboard-field-error.png`);

    // While a call is in flight the button is disabled and says so.
    // Long enough for the page to be seen mid-call on a busy machine.
    running.emulator.setLatency({ fixedMs: 2_000 });
    await page.fill("#course-name", "Biology 101");
    await page.click("#course-form button[type=submit]");
    await page.waitForSelector('#course-form button[type=submit][disabled]:has-text("Saving…")');
    await page.waitForSelector("#course-form .form-status:not(:empty)");
    running.emulator.clearFaults();
    expect(await page.textContent("#course-form .form-status")).toContain("Created course “Biology 101”");
    expect(await page.isDisabled("#course-form button[type=submit]")).toBe(false);
    await page.waitForSelector('.course-name:has-text("Biology 101")');

    // Delete a course (after confirming).
    await page.fill("#course-name", "Scratch course");
    expect(await submitAndWait("#course-form")).toContain("Created course “Scratch course”");
    const scratch = page.locator("article.course", { hasText: "Scratch course" });
    await scratch.waitFor();
    page.once("dialog", (dialog) => void dialog.accept());
    await scratch.locator('[data-action="delete"]').click();
    await scratch.waitFor({ state: "detached" });
    expect(await page.locator("article.course").count()).toBe(1);

    // The class: the new course is preselected and the dates are prefilled.
    await page.fill("#class-name", "Group A");
    await page.selectOption("#class-mode", "hybrid");
    expect(await page.inputValue("#class-course")).not.toBe("");
    expect(await submitAndWait("#class-form")).toContain("Created class “Group A”");
    await page.waitForSelector('li.class:has-text("Group A")');

    // The assessment, in the class just created.
    await page.fill("#assessment-name", "Cell biology oral");
    expect(await page.inputValue("#assessment-class")).not.toBe("");
    await page.fill("#assessment-duration", "900");
    await page.fill("#assessment-questions", "Explain osmosis.\n\nWhat does a ribosome do?\n");
    expect(await submitAndWait("#assessment-form")).toContain("Created assessment “Cell biology oral”");
    await page.waitForSelector('li.assessment:has-text("Cell biology oral")');
    expect(await page.textContent("li.assessment")).toContain("2 questions");
    const launchUrl = await page.inputValue("li.assessment input.launch-link");
    expect(launchUrl).toMatch(new RegExp(`^${running.base}/oral/launch/[A-Za-z0-9_-]+$`));
    const examId = launchUrl.split("/").pop()!;

    // Rename the course in place.
    await page.click('.course [data-action="rename"]');
    await page.fill(".course form.rename input[name=name]", "Biology 101 (autumn)");
    await page.click(".course form.rename button[type=submit]");
    await page.waitForSelector('.course-name:has-text("Biology 101 (autumn)")');

    await screenshot(page, `${ARTIFACTS}/dashboard.png`, { fullPage: true });
    await logOut();

    // --- an enrolled student --------------------------------------------------------------
    await logIn("ana");
    expect(new URL(page.url()).pathname).toBe("/student");
    const exam = page.locator(`li.exam[data-exam-id="${examId}"]`);
    await exam.waitFor();
    expect(await exam.textContent()).toContain("Cell biology oral");
    await screenshot(page, `${ARTIFACTS}/student.png`, { fullPage: true });

    // The exam page strips the ticket from the address bar, so note the URL it was opened with.
    const examResponse = page.waitForResponse((r) => r.url().startsWith(`${running.emulator.examHost}/exam/${examId}`));
    await exam.locator("a", { hasText: "Launch" }).click();
    const ticketUrl = (await examResponse).url();
    expect(ticketUrl).toMatch(/[?&]__clerk_ticket=/);
    await page.waitForSelector("text=Signed in as Ana Lima");
    expect(await page.textContent("h1")).toBe("Cell biology oral");
    expect(page.url()).not.toContain("__clerk_ticket");
    await screenshot(page, `${ARTIFACTS}/exam-page.png`, { fullPage: true });

    // The same ticket again: refused as used.
    const reused = await page.goto(ticketUrl);
    expect(reused?.status()).toBe(410);
    expect(await page.textContent("body")).toContain("already been used");
    await screenshot(page, `${ARTIFACTS}/ticket-reused.png`, { fullPage: true });

    await page.goto(`${running.base}/student`);
    await logOut();

    // --- the outsider, arriving by the launch link while signed out -------------------------
    await page.goto(launchUrl);
    const login = new URL(page.url());
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("returnTo")).toBe(`/oral/launch/${examId}`);
    await logIn("outsider");
    // returnTo brought them back (through the /continue page) to the launch route, which refuses them.
    await page.waitForURL((url) => url.pathname === `/oral/launch/${examId}`);
    expect(await page.textContent("h1")).toBe("You cannot take this exam");
    const refused = await page.goto(launchUrl);
    expect(refused?.status()).toBe(403);
    await screenshot(page, `${ARTIFACTS}/launch-403.png`, { fullPage: true });
    // The plugin's page in the app's layout (renderPage): "Log out" there, and a way home.
    expect(await page.isVisible("#logout")).toBe(true);
    await Promise.all([page.waitForURL(`${running.base}/student`), page.click("text=Back to the home page")]);
  }, 4 * STEP_MS);
});
