/**
 * The whole product in a real browser (Debian's Chromium driven by playwright-core): an
 * instructor creates a course, a class and an assessment through the dashboard; an
 * enrolled student launches it and lands on the exam page signed in; the one-time ticket
 * cannot be used twice; a student on no roster gets the 403 page; an enrolled student who
 * opens the launch link signed out reaches the exam right after logging in, and Back from
 * the exam costs no second token; form errors are worded and placed as a person reads them. The router's
 * own pages render styled under their strict CSP; the app's layout (renderPage) offers
 * "Log out" and a way home.
 *
 * Screenshots go to test-artifacts/ (gitignored) for a person to look at.
 */
import { existsSync, mkdirSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "express-oral-assessments/emulator";
import { SCHOOLS } from "../../example-app/schools.js";
import { createDemoUsers } from "../../example-app/users.js";
import { CHROMIUM, startExampleAppInBrowser, type ExampleAppInBrowser } from "../support/example-app-browser.js";
import { startStack } from "../support/stack.js";

const ARTIFACTS = "test-artifacts";
const haveChromium = existsSync(CHROMIUM);

if (!haveChromium && !process.env.CI) {
  console.warn(
    "\n" + "!".repeat(78) + "\n" +
    `!! BROWSER TEST SKIPPED: ${CHROMIUM} is missing. Install it with:\n` +
    "!!   apt-get update && apt-get install -y chromium\n" +
    "!! (In CI, where CI is set, this test fails instead of skipping.)\n" +
    "!".repeat(78) + "\n",
  );
}

if (!haveChromium && process.env.CI) {
  describe("browser prerequisites", () => {
    it("has Debian's Chromium at /usr/bin/chromium (CI must install it: apt-get install -y chromium)", () => {
      expect(existsSync(CHROMIUM), `${CHROMIUM} is missing`).toBe(true);
    });
  });
}

describe.runIf(haveChromium)("the router's built-in pages in a browser", () => {
  it("render styled under their CSP (the style's hash is right), with no violation and a working way back", async () => {
    const stack = await startStack({ router: { homeUrl: "/home" } });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
    try {
      const tab = await browser.newPage();
      const violations: string[] = [];
      tab.on("console", (message) => { if (/Content Security Policy/i.test(message.text())) violations.push(message.text()); });
      const res = await tab.goto(`${stack.app.url}/oral/launch/abc123`);
      expect(res?.status()).toBe(401);
      expect(await res?.headerValue("content-security-policy")).toContain("default-src 'none'");
      // 36rem: the inline style applied, which the CSP allows only when its hash matches.
      expect(await tab.evaluate("getComputedStyle(document.body).maxWidth")).toBe("576px");
      expect(violations).toEqual([]);
      await Promise.all([tab.waitForURL(`${stack.app.url}/home`), tab.click("text=Back to the home page")]);
    } finally {
      await browser.close();
      await stack.close();
    }
  }, 60_000);
});

describe.runIf(haveChromium)("the example app in a browser", () => {
  const PASSWORD = "browser-test-password";
  const users = createDemoUsers({ password: PASSWORD });
  let running: ExampleAppInBrowser | undefined;
  let emulator: Emulator;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    running = await startExampleAppInBrowser(users);
    ({ emulator, base, browser } = running);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await running?.close();
  });

  async function logIn(username: string): Promise<void> {
    if (!page.url().includes("/login")) await page.goto(`${base}/login`);
    await page.fill("#username", username);
    await page.fill("#password", PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click("form.login button[type=submit]")]);
  }

  async function logOut(): Promise<void> {
    await Promise.all([page.waitForURL(`${base}/login`), page.click("#logout")]);
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
    await page.goto(base);
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
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-field-error.png` });

    // While a call is in flight the button is disabled and says so.
    // Long enough for the page to be seen mid-call on a busy machine.
    emulator.setLatency({ fixedMs: 2_000 });
    await page.fill("#course-name", "Biology 101");
    await page.click("#course-form button[type=submit]");
    await page.waitForSelector('#course-form button[type=submit][disabled]:has-text("Saving…")');
    await page.waitForSelector("#course-form .form-status:not(:empty)");
    emulator.clearFaults();
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
    expect(launchUrl).toMatch(new RegExp(`^${base}/oral/launch/[A-Za-z0-9_-]+$`));
    const examId = launchUrl.split("/").pop()!;

    // Rename the course in place.
    await page.click('.course [data-action="rename"]');
    await page.fill(".course form.rename input[name=name]", "Biology 101 (autumn)");
    await page.click(".course form.rename button[type=submit]");
    await page.waitForSelector('.course-name:has-text("Biology 101 (autumn)")');

    await page.screenshot({ path: `${ARTIFACTS}/dashboard.png`, fullPage: true });
    await logOut();

    // --- an enrolled student --------------------------------------------------------------
    await logIn("ana");
    expect(new URL(page.url()).pathname).toBe("/student");
    const exam = page.locator(`li.exam[data-exam-id="${examId}"]`);
    await exam.waitFor();
    expect(await exam.textContent()).toContain("Cell biology oral");
    await page.screenshot({ path: `${ARTIFACTS}/student.png`, fullPage: true });

    // The exam page strips the ticket from the address bar, so note the URL it was opened with.
    const examResponse = page.waitForResponse((r) => r.url().startsWith(`${emulator.examHost}/exam/${examId}`));
    await exam.locator("a", { hasText: "Launch" }).click();
    const ticketUrl = (await examResponse).url();
    expect(ticketUrl).toMatch(/[?&]__clerk_ticket=/);
    await page.waitForSelector("text=Signed in as Ana Lima");
    expect(await page.textContent("h1")).toBe("Cell biology oral");
    expect(page.url()).not.toContain("__clerk_ticket");
    await page.screenshot({ path: `${ARTIFACTS}/exam-page.png`, fullPage: true });

    // The same ticket again: refused as used.
    const reused = await page.goto(ticketUrl);
    expect(reused?.status()).toBe(410);
    expect(await page.textContent("body")).toContain("already been used");
    await page.screenshot({ path: `${ARTIFACTS}/ticket-reused.png`, fullPage: true });

    await page.goto(`${base}/student`);
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
    await page.screenshot({ path: `${ARTIFACTS}/launch-403.png`, fullPage: true });
    // The plugin's page in the app's layout (renderPage): "Log out" there, and a way home.
    expect(await page.isVisible("#logout")).toBe(true);
    await Promise.all([page.waitForURL(`${base}/student`), page.click("text=Back to the home page")]);
  }, 120_000);

  it("an enrolled student who opens the launch link signed out, then logs in, lands on the exam signed in (one token, and Back costs none)", async () => {
    // The exam, made through the instructor API (the dashboard is covered above).
    const instructor = request.agent(base);
    expect((await instructor.post("/login").type("form").send({ username: "instructor", password: PASSWORD })).status).toBe(303);
    const course = await instructor.post("/oral/courses").send({ name: "Signed-out course" });
    const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`)
      .send({ name: "Group S", startDate: "2026-09-01", endDate: "2026-12-20" });
    const exam = await instructor.post("/oral/oral-assessments")
      .send({ name: "Signed-out oral", classId: cls.body.data._id, questions: [{ text: "Why?" }] });
    expect(exam.status).toBe(201);
    const examId: string = exam.body.data._id;

    const student = await browser.newContext();
    student.setDefaultTimeout(15_000);
    const tab = await student.newPage();
    const cspViolations: string[] = [];
    tab.on("console", (message) => { if (/Content Security Policy|form-action/i.test(message.text())) cspViolations.push(message.text()); });
    try {
      const signInCalls = () => emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).length;
      const before = signInCalls();

      await tab.goto(`${base}/oral/launch/${examId}`);
      expect(new URL(tab.url()).pathname).toBe("/login");
      expect(signInCalls()).toBe(before); // nobody is signed in yet: no token asked for

      await tab.fill("#username", "ben");
      await tab.fill("#password", PASSWORD);
      await tab.click("form.login button[type=submit]");
      // The form's redirect chain used to end on the exam host and be blocked by the
      // login page's form-action 'self', leaving the student on the filled-in form.
      await tab.waitForSelector("text=Signed in as Ben Okafor");
      expect(new URL(tab.url()).origin).toBe(emulator.examHost);
      expect(new URL(tab.url()).pathname).toBe(`/exam/${examId}`);
      expect(await tab.textContent("h1")).toBe("Signed-out oral");
      expect(signInCalls() - before).toBe(1); // exactly one token, and it was used
      expect(cspViolations).toEqual([]);
      await tab.screenshot({ path: `${ARTIFACTS}/signed-out-launch.png`, fullPage: true });

      // Back from the exam returns to the login page's history entry: the signed-in
      // student goes to their own page, not on to the launch link (no second token).
      await tab.goBack();
      await tab.waitForURL(`${base}/student`);
      await tab.locator(`li.exam[data-exam-id="${examId}"]`).waitFor();
      expect(signInCalls() - before).toBe(1);
      await tab.screenshot({ path: `${ARTIFACTS}/back-after-launch.png`, fullPage: true });
    } finally {
      await student.close();
    }
  }, 60_000);
  it("instructor edits a class, deletes an assessment and creates a role-play (each form error worded and placed at its field or line); a student launches the role-play", async () => {
    const context2 = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context2.setDefaultTimeout(15_000);
    const tab = await context2.newPage();
    try {
      await tab.goto(`${base}/login`);
      await tab.fill("#username", "instructor");
      await tab.fill("#password", PASSWORD);
      await Promise.all([tab.waitForNavigation(), tab.click("form.login button[type=submit]")]);
      await tab.fill("#course-name", "Role-play course");
      await tab.click("#course-form button[type=submit]");
      const course = tab.locator("article.course", { hasText: "Role-play course" });
      await course.waitFor();
      await tab.fill("#class-name", "Group P");
      await tab.selectOption("#class-course", { label: "Role-play course" });
      await tab.click("#class-form button[type=submit]");
      const cls = course.locator("li.class", { hasText: "Group P" });
      await cls.waitFor();

      // Edit the class in place.
      await cls.locator('.class-head [data-action="edit"]').first().click();
      await cls.locator("form.rename input[name=name]").fill("Group P2");
      await cls.locator("form.rename button[type=submit]").click();
      const edited = course.locator("li.class", { hasText: "Group P2" });
      await edited.waitFor();

      // An assessment, then deleted (after confirming).
      await tab.fill("#assessment-name", "Short-lived oral");
      await tab.selectOption("#assessment-class", { label: "Group P2" });
      await tab.click("#assessment-form button[type=submit]");
      const oral = edited.locator("li.assessment", { hasText: "Short-lived oral" });
      await oral.waitFor();
      tab.once("dialog", (dialog) => void dialog.accept());
      await oral.locator('[data-action="delete"]').click();
      await oral.waitFor({ state: "detached" });

      // Questions: a line over the limit is named by its line number, once per message.
      await tab.fill("#assessment-name", "Long questions");
      await tab.selectOption("#assessment-class", { label: "Group P2" });
      await tab.fill("#assessment-questions", `Short one?\n\n${"x".repeat(4001)}\nFine?\n${"y".repeat(4002)}`);
      await tab.click("#assessment-form button[type=submit]");
      await tab.waitForSelector('#assessment-form .field-error[data-for="questions"]:not(:empty)');
      expect(await tab.textContent('#assessment-form .field-error[data-for="questions"]')).toBe("Lines 3 and 5: must be at most 4000 characters");
      await tab.locator("#assessment-form").screenshot({ path: `${ARTIFACTS}/dashboard-question-lines.png` });

      // A role-play sent empty: every field is named in the words the other forms use,
      // never the validator's raw "Invalid input: expected string, received undefined".
      await tab.click("#roleplay-form button[type=submit]");
      await tab.waitForSelector("#roleplay-form .form-error:not(:empty)");
      const fieldErrors = async () => Object.fromEntries(await Promise.all(
        (await tab.locator("#roleplay-form .field-error").all()).map(async (el) => [await el.getAttribute("data-for"), await el.textContent()]),
      ));
      expect(await fieldErrors()).toEqual({
        name: "must not be empty", classId: "", roleplayStudentRole: "must not be empty", roleplayCoralRole: "must not be empty",
        roleplayScenario: "must be at least 150 characters (the platform's minimum)",
        roleplayScenarioDetails: "must be at least 300 characters (the platform's minimum)", roleplayDuration: "",
      });
      await tab.locator("#roleplay-form").screenshot({ path: `${ARTIFACTS}/dashboard-roleplay-empty.png` });

      // A role-play: a scenario under the minimum is named at its field, nothing created.
      await tab.fill("#roleplay-name", "Pharmacy counselling");
      await tab.selectOption("#roleplay-class", { label: "Group P2" });
      await tab.fill("#roleplay-student-role", "Pharmacist");
      await tab.fill("#roleplay-ai-role", "Patient");
      await tab.fill("#roleplay-scenario", "Too short.");
      await tab.fill("#roleplay-details", "D".repeat(300));
      await tab.click("#roleplay-form button[type=submit]");
      await tab.waitForSelector('#roleplay-form .field-error[data-for="roleplayScenario"]:not(:empty)');
      expect(await tab.textContent('#roleplay-form .field-error[data-for="roleplayScenario"]')).toContain("at least 150");
      await tab.fill("#roleplay-scenario", "S".repeat(150));
      await tab.click("#roleplay-form button[type=submit]");
      await tab.waitForSelector("#roleplay-form .form-status:not(:empty)");
      const roleplay = edited.locator('li.assessment[data-kind="roleplay"]');
      await roleplay.waitFor();
      const launchUrl = await roleplay.locator("input.launch-link").inputValue();
      expect(launchUrl).toMatch(new RegExp(`^${base}/oral/launch/roleplay/[A-Za-z0-9_-]+$`));
      const roleplayId = launchUrl.split("/").pop()!;
      await tab.screenshot({ path: `${ARTIFACTS}/dashboard-roleplay.png`, fullPage: true });

      // The student: from their page to the role-play's exam page, signed in.
      await context2.clearCookies();
      await tab.goto(`${base}/login`);
      await tab.fill("#username", "ana");
      await tab.fill("#password", PASSWORD);
      await Promise.all([tab.waitForNavigation(), tab.click("form.login button[type=submit]")]);
      const item = tab.locator(`li.exam[data-exam-id="${roleplayId}"]`);
      await item.waitFor();
      await item.locator("a", { hasText: "Launch" }).click();
      await tab.waitForSelector("text=Signed in as Ana Lima");
      expect(new URL(tab.url()).pathname).toBe(`/exam/${roleplayId}/roleplay`);
      await tab.screenshot({ path: `${ARTIFACTS}/roleplay-page.png`, fullPage: true });
    } finally {
      await context2.close();
    }
  }, 120_000);

  it("each school's dashboard names its school and lists its own courses only; a student's page names their school", async () => {
    const courseOf = async (instructor: string, name: string) => {
      const agent = request.agent(base);
      expect((await agent.post("/login").type("form").send({ username: instructor, password: PASSWORD })).status).toBe(303);
      expect((await agent.post("/oral/courses").send({ name })).status).toBe(201);
    };
    await courseOf("instructor", "North Algebra");
    await courseOf("professor", "South Poetry");

    for (const [username, school, own, other] of [
      ["instructor", "north", "North Algebra", "South Poetry"],
      ["professor", "south", "South Poetry", "North Algebra"],
    ] as const) {
      const schoolContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      schoolContext.setDefaultTimeout(15_000);
      const tab = await schoolContext.newPage();
      try {
        await tab.goto(`${base}/login`);
        await tab.fill("#username", username);
        await tab.fill("#password", PASSWORD);
        await Promise.all([tab.waitForURL(`${base}/dashboard`), tab.click("form.login button[type=submit]")]);
        await tab.waitForSelector(`.course-name:has-text("${own}")`);
        expect(await tab.textContent("#school")).toBe(SCHOOLS.find((s) => s.id === school)!.name);
        expect(await tab.locator(`.course-name:has-text("${other}")`).count()).toBe(0);
        await tab.screenshot({ path: `${ARTIFACTS}/dashboard-${school}.png`, fullPage: true });
      } finally {
        await schoolContext.close();
      }
    }

    const student = await browser.newContext();
    student.setDefaultTimeout(15_000);
    const tab = await student.newPage();
    try {
      await tab.goto(`${base}/login`);
      await tab.fill("#username", "sam");
      await tab.fill("#password", PASSWORD);
      await Promise.all([tab.waitForURL(`${base}/student`), tab.click("form.login button[type=submit]")]);
      await tab.waitForSelector("#school:has-text('South College')");
      expect(await tab.title()).toBe("South College · My oral exams");
    } finally {
      await student.close();
    }
  }, 60_000);

  it("a course form submitted again after its answer was lost makes one course (one Idempotency-Key per submission)", async () => {
    const instructor = await browser.newContext();
    instructor.setDefaultTimeout(15_000);
    const tab = await instructor.newPage();
    try {
      await tab.goto(`${base}/login`);
      await tab.fill("#username", "instructor");
      await tab.fill("#password", PASSWORD);
      await Promise.all([tab.waitForNavigation(), tab.click("form.login button[type=submit]")]);
      const coursePosts = () => emulator.requests.filter((r) => r.method === "POST" && r.path === "/courses" && (r.body as { name?: string })?.name === "Double submit").length;

      // The first submission reaches the server, which creates the course, but its answer
      // never reaches the page (a dropped connection): the page shows a network error.
      const keys: string[] = [];
      // Only the first POST: the dashboard's own list requests (GET, same URL) pass.
      let dropped = false;
      await tab.route("**/oral/courses", async (route) => {
        if (dropped || route.request().method() !== "POST") return route.continue();
        dropped = true;
        keys.push(route.request().headers()["idempotency-key"] ?? "");
        await route.fetch();
        await route.abort("connectionreset");
      });
      await tab.fill("#course-name", "Double submit");
      await tab.click("#course-form button[type=submit]");
      await tab.waitForSelector("#course-form .form-error:not(:empty)");
      expect(coursePosts()).toBe(1);

      // The instructor submits again: the same key, so the server replays the first answer.
      const again = tab.waitForResponse((res) => res.url().endsWith("/oral/courses") && res.request().method() === "POST");
      await tab.click("#course-form button[type=submit]");
      const replayed = await again;
      await tab.waitForSelector("#course-form .form-status:not(:empty)");
      expect(await replayed.headerValue("idempotent-replayed")).toBe("true");
      expect(replayed.request().headers()["idempotency-key"]).toBe(keys[0]);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(coursePosts()).toBe(1);
      await tab.waitForSelector('.course-name:has-text("Double submit")');
      expect(await tab.locator('.course-name:has-text("Double submit")').count()).toBe(1);
    } finally {
      await instructor.close();
    }
  }, 60_000);
});
