/**
 * The LMS gradebook in a real browser (Debian's Chromium): an instructor places an exam
 * with the picker in the LMS emulator's frame (the LMS makes its line item), a student
 * opens it from the course in a new window and reaches the exam, and the emulator's
 * gradebook page shows the student as Started; the exam site's redirect back to
 * `<mount>/lti/return` (the return mark travels on that top-level navigation) turns it
 * into Submitted, pending manual grading. Screenshots go to test-artifacts/.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ARTIFACTS, CHROMIUM, screenshot, STEP_MS } from "../support/chromium.js";
import { frameShowing, openLmsBrowser } from "../support/lms-browser.js";
import { startLtiBench } from "../support/lti.js";

describe.runIf(existsSync(CHROMIUM))("the LMS gradebook in a browser", { retry: 1 }, () => {
  it("shows the student Started after the launch, and Submitted after the return", async () => {
    const bench = await startLtiBench({ gradebook: { pollMs: 50 } });
    const { browser, context, page } = await openLmsBrowser(bench);
    try {
      await page.goto(bench.lms.addExamPageUrl());
      const picker = await frameShowing(bench, page, 'input[name="pick"]');
      await picker.locator(`button[value="${bench.examId}"]`).click();
      const tool = await frameShowing(bench, page, "h1", "Added to the course");
      const placed = bench.lms.deepLinkReturns.at(-1)!;
      if (!placed.ok) throw new Error(placed.error);
      expect(bench.lms.lineItems.filter((i) => i.resourceId === bench.examId)).toHaveLength(1);

      await tool.locator(`a[href*="${placed.links[0]!.id}"]`).click();
      await page.waitForURL((url) => url.pathname.startsWith("/course/"));
      const [exam] = await Promise.all([context.waitForEvent("page"), page.locator("#launch").click()]);
      await exam.waitForURL((url) => url.pathname === `/exam/${bench.examId}`);

      const book = await context.newPage();
      const cell = async () => {
        await book.goto(bench.lms.gradebookUrl());
        return book.locator("td.cell").first().getAttribute("data-activity", { timeout: 1_000 }).catch(() => null);
      };
      await expect.poll(cell, { timeout: STEP_MS, interval: 200 }).toBe("Started");
      expect(await book.locator("tbody th").first().textContent()).toBe("Sam Student");
      await screenshot(book, `${ARTIFACTS}/gradebook-1-started.png`);

      // The exam site's post-exam redirect, in the exam's own window: a navigation the exam
      // page starts, not a typed URL. (Here the emulator's exam host is on 127.0.0.1 like the
      // tool, so the same site: this does not tell SameSite=Lax from Strict.)
      const back = `${bench.stack.app.url}/oral/lti/return`;
      await Promise.all([exam.waitForURL(back), exam.evaluate(`window.location.href = ${JSON.stringify(back)}`)]);
      expect(await exam.textContent("body")).toContain("handed in");
      await expect.poll(cell, { timeout: STEP_MS, interval: 200 }).toBe("Submitted");
      expect(await book.locator("td.cell .grading").first().textContent()).toBe("PendingManual");
      await screenshot(book, `${ARTIFACTS}/gradebook-2-submitted.png`);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, 5 * STEP_MS);
});
