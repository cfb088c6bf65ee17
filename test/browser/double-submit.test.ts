/**
 * The example app's dashboard in a real browser: a course form submitted again after its
 * answer was lost (a dropped connection) makes one course, since each submission keeps
 * one Idempotency-Key until it succeeds.
 */
import { describe, expect, it } from "vitest";
import { STEP_MS } from "../support/chromium.js";
import { chromiumOrSkip, logInTab, openTab, useExampleAppInBrowser } from "../support/example-app-browser.js";

const haveChromium = chromiumOrSkip();

describe.runIf(haveChromium)("the example app in a browser", () => {
  const running = useExampleAppInBrowser();

  it("a course form submitted again after its answer was lost makes one course (one Idempotency-Key per submission)", async () => {
    const { context: instructor, tab } = await openTab(running.browser);
    try {
      await logInTab(tab, running.base, "instructor");
      const coursePosts = () => running.emulator.requests.filter((r) => r.method === "POST" && r.path === "/courses" && (r.body as { name?: string })?.name === "Double submit").length;

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
  }, 4 * STEP_MS);
});
