/**
 * *Prepare this exam for the course* in a real browser (Debian's Chromium), the issue's
 * "done when" end to end: the instructor opens the placed exam from the LMS emulator's
 * course, picks a start time in the form and prepares it (the roster read through NRPS
 * into the router's prepare); once every learner's sign-in is ready, a student opens the
 * exam from the course with no sign-in call to the platform, and the LMS's gradebook
 * shows the student Started. Screenshots go to test-artifacts/.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ARTIFACTS, CHROMIUM, screenshot, STEP_MS } from "../support/chromium.js";
import { frameShowing, openLmsBrowser } from "../support/lms-browser.js";
import { startLtiBench } from "../support/lti.js";

describe.runIf(existsSync(CHROMIUM))("Prepare this exam for the course, in a browser", () => {
  it("prepares the course from the instructor's page; a student then starts with no sign-in call and shows Started", async () => {
    const bench = await startLtiBench({ gradebook: { pollMs: 50 } });
    bench.lms.setRoster({ size: 5 });
    // Placed to open in a new window, as the picker places it: the instructor's page and the exam are top-level there.
    const link = bench.lms.addResourceLink({ title: "Cells", custom: { exam_id: bench.examId }, documentTarget: "window" });
    const { browser, context } = await openLmsBrowser(bench);
    try {
      // The instructor opens the placed exam from the course (its launch links the course).
      const course = await context.newPage();
      await course.goto(bench.lms.coursePageUrl("instructor-1", link.id));
      await course.locator("#launch").click();
      const tool = await frameShowing(bench, context, "#prepare-course");
      // The next whole minute at least 20 s away, in the browser's own time (the form reads it
      // there, to the minute); the preparation spreads its sign-ins up to the start.
      const startAt = await tool.evaluate(() => {
        const d = new Date(Date.now() + 80_000);
        d.setSeconds(0, 0);
        const pad = (n: number) => String(n).padStart(2, "0");
        return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
      });
      await tool.locator('input[name="startAt"]').fill(startAt);
      await screenshot(tool.page(), `${ARTIFACTS}/prepare-course-1-form.png`);
      await tool.locator("#prepare-course-button").click();
      const answer = await frameShowing(bench, context, "#progress-link");
      const roster = Number(await answer.locator("#p-roster").textContent());
      expect(roster).toBeGreaterThan(0);
      await screenshot(answer.page(), `${ARTIFACTS}/prepare-course-2-prepared.png`);

      // The progress page, as the instructor follows its link, until every sign-in is ready.
      const progress = await context.newPage();
      const progressUrl = await answer.locator("#progress-link").getAttribute("href");
      const ready = async () => {
        await progress.goto(progressUrl!);
        return Number(await progress.locator("#p-ready").textContent({ timeout: 1_000 }).catch(() => "0"));
      };
      await expect.poll(ready, { timeout: 120_000, interval: 500 }).toBe(roster);

      // A student opens the exam from the course: a new window lands on the exam page.
      const sent = bench.stack.track();
      const student = await context.newPage();
      await student.goto(bench.lms.coursePageUrl("student-1", link.id));
      const [exam] = await Promise.all([context.waitForEvent("page"), student.locator("#launch").click()]);
      await exam.waitForURL((url) => url.pathname === `/exam/${bench.examId}`);
      expect(sent().filter((r) => r.path === "/students/sign-in-token")).toEqual([]);

      // And the LMS's gradebook shows the student Started.
      const book = await context.newPage();
      const cell = async () => {
        await book.goto(bench.lms.gradebookUrl());
        return book.locator('tr[data-user="student-1"] td.cell').first().getAttribute("data-activity", { timeout: 1_000 }).catch(() => null);
      };
      await expect.poll(cell, { timeout: STEP_MS, interval: 200 }).toBe("Started");
      await screenshot(book, `${ARTIFACTS}/prepare-course-3-gradebook.png`);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, 300_000);
});
