/**
 * Submission Review in a real browser (Debian's Chromium), issue 44.3: a learner reached
 * the exam and came back (over HTTP); the instructor opens the LMS emulator's gradebook and
 * clicks the learner's *View submission*; the LMS frames the tool's Submission Review
 * launch, which shows the learner's record. At 1280 and 390 px wide the record fits its
 * frame (tables scroll inside their box). Screenshots go to test-artifacts/.
 */
import { existsSync } from "node:fs";
import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import { ARTIFACTS, CHROMIUM, screenshot, STEP_MS } from "../support/chromium.js";
import { frameShowing, openLmsBrowser } from "../support/lms-browser.js";
import { followToExam, launchFromCourse, placeExam, startLtiBench } from "../support/lti.js";

describe.runIf(existsSync(CHROMIUM))("Submission Review in a browser", { retry: 1 }, () => {
  it("the gradebook's View submission opens the learner's record for the instructor, at 1280 and 390 px", async () => {
    const bench = await startLtiBench({ gradebook: { pollMs: 50 } });
    const linkId = await placeExam(bench, bench.examId);
    const { opened } = await followToExam(await launchFromCourse(bench, "student-1", linkId));
    const mark = (opened.headers["set-cookie"] as unknown as string[]).find((c) => c.startsWith("eoa_lti_return="))!.split(";")[0]!;
    await request(bench.stack.app.url).get("/oral/lti/return").set("Cookie", mark);
    await vi.waitFor(() => expect(bench.lms.scores.filter((s) => s.activityProgress === "Submitted")).toHaveLength(1), { timeout: STEP_MS, interval: 50 });

    const { browser, context, page } = await openLmsBrowser(bench);
    try {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(bench.lms.gradebookUrl());
      await page.locator('tr[data-user="student-1"] a.review').click();
      // The picker placed the exam to open in a new window: the review opens there too.
      await page.waitForURL((url) => url.pathname.startsWith("/course/"));
      const [review] = await Promise.all([context.waitForEvent("page"), page.locator("#launch").click()]);
      await review.setViewportSize({ width: 1280, height: 900 });
      const tool = await frameShowing(bench, review, "h1", "Sam Student");
      expect(await tool.locator("#returned").textContent()).toMatch(/UTC/);
      expect(await tool.locator("#gradebook tbody tr").count()).toBe(2);
      expect(await tool.locator("#launch-count").textContent()).toMatch(/^[1-9]/);
      await screenshot(review, `${ARTIFACTS}/submission-review-1280.png`);

      await review.setViewportSize({ width: 390, height: 900 });
      // The page itself never scrolls sideways; a wide table scrolls inside its own box.
      await expect.poll(() => tool.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth"), { timeout: STEP_MS }).toBeLessThanOrEqual(0);
      await screenshot(review, `${ARTIFACTS}/submission-review-390.png`);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, 4 * STEP_MS);
});
