/**
 * The example app's dashboard in a real browser: an instructor edits a class, deletes an
 * assessment and creates a role-play, each form error worded and placed at its field or
 * line; a student launches the role-play from their page.
 */
import { describe, expect, it } from "vitest";
import { screenshot, STEP_MS } from "../support/chromium.js";
import { ARTIFACTS, chromiumOrSkip, logInTab, openTab, useExampleAppInBrowser } from "../support/example-app-browser.js";

const haveChromium = chromiumOrSkip();

describe.runIf(haveChromium)("the example app in a browser", () => {
  const running = useExampleAppInBrowser();

  it("instructor edits a class, deletes an assessment and creates a role-play (each form error worded and placed at its field or line); a student launches the role-play", async () => {
    const { context: context2, tab } = await openTab(running.browser, { viewport: { width: 1280, height: 900 } });
    try {
      await logInTab(tab, running.base, "instructor");
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
      await screenshot(tab.locator("#assessment-form"), `${ARTIFACTS}/dashboard-question-lines.png`);

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
      await screenshot(tab.locator("#roleplay-form"), `${ARTIFACTS}/dashboard-roleplay-empty.png`);

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
      expect(launchUrl).toMatch(new RegExp(`^${running.base}/oral/launch/roleplay/[A-Za-z0-9_-]+$`));
      const roleplayId = launchUrl.split("/").pop()!;
      await screenshot(tab, `${ARTIFACTS}/dashboard-roleplay.png`, { fullPage: true });

      // The student: from their page to the role-play's exam page, signed in.
      await context2.clearCookies();
      await logInTab(tab, running.base, "ana");
      const item = tab.locator(`li.exam[data-exam-id="${roleplayId}"]`);
      await item.waitFor();
      await item.locator("a", { hasText: "Launch" }).click();
      await tab.waitForSelector("text=Signed in as Ana Lima");
      expect(new URL(tab.url()).pathname).toBe(`/exam/${roleplayId}/roleplay`);
      await screenshot(tab, `${ARTIFACTS}/roleplay-page.png`, { fullPage: true });
    } finally {
      await context2.close();
    }
  }, 4 * STEP_MS);
});
