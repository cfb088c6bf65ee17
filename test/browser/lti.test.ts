/**
 * An LMS launch in a real browser (Debian's Chromium): the LMS emulator on one site
 * (http://localhost:PORT) frames the tool on another (http://127.0.0.1:PORT), with
 * third-party cookies blocked, so the state cookie cannot travel. The launch still
 * succeeds through Platform Storage (postMessage to the LMS's forwarding frame), and the
 * student's *Open the exam* lands on the exam page, signed in, in a new window. And an
 * instructor places an exam with Deep Linking from the LMS's frame, which a student then
 * opens from the course (in a new window, as the tool asked) and lands in.
 * Screenshots go to test-artifacts/ for a person to look at.
 *
 * On a loaded machine every wait is for a state (a frame showing an element, a URL, the
 * LMS's storage emptied), never a fixed time, with generous limits; and a launch the tool
 * refused fails at once, naming the refused check from the tool's log line `lti_refused`
 * (the refusal page itself only says "This launch could not be accepted").
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ARTIFACTS, CHROMIUM, screenshot, STEP_MS } from "../support/chromium.js";
import { expectNoRefusal, frameShowing, openLmsBrowser } from "../support/lms-browser.js";
import { linkCourse, startLtiBench, type LtiBench } from "../support/lti.js";

/** A whole test: a bench, a browser and a few steps of up to STEP_MS each. */
const TEST_MS = 240_000;

/** Debian's Chromium with third-party cookies phased out (the state cookie cannot travel), one page. */
const openBrowser = (bench: LtiBench) => openLmsBrowser(bench, ["--test-third-party-cookie-phaseout"]);

// One retry: on a loaded machine the cross-site frame at times never reached the picker or
// the launch page (the error lists the refused check, if any, what each frame showed, and
// the trace: every navigation the browser sent and what came back, and the tool's log
// events). The trace of one such failure (load 8–12) showed the tool had answered the
// launch while the frame stayed at the LMS's /auth: the frame's move to another process,
// which openLmsBrowser now avoids (lms-browser.ts says why).
describe.runIf(existsSync(CHROMIUM))("an LTI launch in a browser", { retry: 1 }, () => {
  it("keeps its one partitioned cookie in the LMS's frame with third-party cookies blocked (CHIPS): the launch needs no Platform Storage, and removes the stored value", async () => {
    const bench = await startLtiBench();
    await linkCourse(bench);
    const { browser, page } = await openBrowser(bench);
    try {
      await page.goto(bench.lms.coursePageUrl("student-1", bench.linkId));
      await frameShowing(bench, page, "#open");
      expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_platform_storage_check")).toBe(false);
      expectNoRefusal(bench);
      const forwarding = page.frames().find((f) => f.name() === "post_message_forwarding")!;
      await expect.poll(() => forwarding.evaluate("Object.keys(window.store)"), { timeout: STEP_MS, interval: 200 }).toEqual([]);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, TEST_MS);

  it("reaches the exam from the LMS's frame with no cookie at all (as Safari, without CHIPS), through Platform Storage", async () => {
    const bench = await startLtiBench();
    // Course binding: the course's instructor opened the link once, so its learners may launch.
    await linkCourse(bench);
    const { browser, context, page } = await openBrowser(bench);
    // The cookie is gone before the launch is posted, as in a browser that keeps no
    // third-party cookie, partitioned or not.
    await context.route((url) => url.pathname === "/oral/lti/launch", async (route) => {
      await context.clearCookies();
      await route.continue();
    });
    try {
      expect(new URL(bench.lms.url).hostname).toBe("localhost");
      expect(new URL(bench.stack.app.url).hostname).toBe("127.0.0.1");
      await page.goto(bench.lms.coursePageUrl("student-1", bench.linkId));
      // The tool's frame navigates three times across sites (login, the LMS's form post,
      // the Platform Storage round): it is looked up afresh, by what it shows (lms-browser.ts).
      const tool = await frameShowing(bench, page, "#open");
      await screenshot(page, `${ARTIFACTS}/lti-1-course-page.png`);
      // The state came back through Platform Storage, not the cookie.
      expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_platform_storage_check")).toBe(true);
      expectNoRefusal(bench);
      // Read back, the login's value was removed from the LMS's Platform Storage (its allowance is small).
      const forwarding = page.frames().find((f) => f.name() === "post_message_forwarding")!;
      await expect.poll(() => forwarding.evaluate("Object.keys(window.store)"), { timeout: STEP_MS, interval: 200 }).toEqual([]);

      const [exam] = await Promise.all([context.waitForEvent("page"), tool.locator("#open").click()]);
      await exam.waitForURL((url) => url.pathname === `/exam/${bench.examId}`);
      await exam.waitForLoadState();
      await screenshot(exam, `${ARTIFACTS}/lti-2-exam-page.png`);
      expect(new URL(exam.url()).pathname).toBe(`/exam/${bench.examId}`);
      expect(await exam.textContent("body")).toMatch(/sam@lms\.example|Sam/);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, TEST_MS);

  it("lets an instructor place an exam with the picker in the LMS's frame, and a student then reaches it", async () => {
    const bench = await startLtiBench();
    const { browser, context, page } = await openBrowser(bench);
    try {
      await page.goto(bench.lms.addExamPageUrl());
      // As above: the tool is found through the course page's iframe element.
      const picker = await frameShowing(bench, page, 'input[name="pick"]');
      await screenshot(page, `${ARTIFACTS}/lti-3-picker.png`);
      await picker.locator(`button[value="${bench.examId}"]`).click();
      const tool = await frameShowing(bench, page, "h1", "Added to the course");
      await screenshot(page, `${ARTIFACTS}/lti-4-placed.png`);
      const placed = bench.lms.deepLinkReturns.at(-1)!;
      if (!placed.ok) throw new Error(placed.error);
      expect(placed.links[0]!.custom).toEqual({ exam_id: bench.examId });

      await tool.locator(`a[href*="${placed.links[0]!.id}"]`).click();
      await page.waitForURL((url) => url.pathname.startsWith("/course/"));
      const [exam] = await Promise.all([context.waitForEvent("page"), page.locator("#launch").click()]);
      await exam.waitForURL((url) => url.pathname === `/exam/${bench.examId}`);
      await exam.waitForLoadState();
      await screenshot(exam, `${ARTIFACTS}/lti-5-placed-exam.png`);
      expect(await exam.textContent("body")).toMatch(/sam@lms\.example|Sam/);
      expectNoRefusal(bench);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, TEST_MS);
});
