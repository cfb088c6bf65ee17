/**
 * An LMS launch in a real browser (Debian's Chromium): the LMS emulator on one site
 * (http://localhost:PORT) frames the tool on another (http://127.0.0.1:PORT), with
 * third-party cookies blocked, so the state cookie cannot travel. The launch still
 * succeeds through Platform Storage (postMessage to the LMS's forwarding frame), and the
 * student's *Open the exam* lands on the exam page, signed in, in a new window. And an
 * instructor places an exam with Deep Linking from the LMS's frame, which a student then
 * opens from the course (in a new window, as the tool asked) and lands in.
 * Screenshots go to test-artifacts/ for a person to look at.
 */
import { existsSync, mkdirSync } from "node:fs";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startLtiBench } from "../support/lti.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = "test-artifacts";

describe.runIf(existsSync(CHROMIUM))("an LTI launch in a browser", () => {
  it("reaches the exam from the LMS's frame with no third-party cookie, through Platform Storage", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const bench = await startLtiBench();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--test-third-party-cookie-phaseout", "--disable-quic", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      expect(new URL(bench.lms.url).hostname).toBe("localhost");
      expect(new URL(bench.stack.app.url).hostname).toBe("127.0.0.1");
      await page.goto(bench.lms.coursePageUrl("student-1", bench.linkId));
      // The tool's frame navigates three times across sites (login, the LMS's form post,
      // the Platform Storage round), each time to another renderer: a Frame object taken on
      // an earlier document can go stale, so the frame is found through the course page's
      // iframe element each time (a frame locator), which the navigations do not replace.
      const tool = page.frameLocator('iframe[name="tool_content"]');
      await tool.locator("#open").waitFor({ timeout: 30_000 });
      await page.screenshot({ path: `${ARTIFACTS}/lti-1-course-page.png` });
      // The state came back through Platform Storage, not the cookie.
      expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_platform_storage_check")).toBe(true);
      expect(bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused")).toEqual([]);

      const [exam] = await Promise.all([context.waitForEvent("page"), tool.locator("#open").click()]);
      await exam.waitForURL((url) => url.pathname === `/exam/${bench.examId}`);
      await exam.waitForLoadState();
      await exam.screenshot({ path: `${ARTIFACTS}/lti-2-exam-page.png` });
      expect(new URL(exam.url()).pathname).toBe(`/exam/${bench.examId}`);
      expect(await exam.textContent("body")).toMatch(/sam@lms\.example|Sam/);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, 90_000);

  it("lets an instructor place an exam with the picker in the LMS's frame, and a student then reaches it", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const bench = await startLtiBench();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--test-third-party-cookie-phaseout", "--disable-quic", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      await page.goto(bench.lms.addExamPageUrl());
      // As above: the tool is found through the course page's iframe element.
      const tool = page.frameLocator('iframe[name="tool_content"]');
      await tool.locator('input[name="pick"]').waitFor({ state: "attached", timeout: 30_000 });
      await page.screenshot({ path: `${ARTIFACTS}/lti-3-picker.png` });
      await tool.locator(`button[value="${bench.examId}"]`).click();
      await tool.locator("h1", { hasText: "Added to the course" }).waitFor({ timeout: 30_000 });
      await page.screenshot({ path: `${ARTIFACTS}/lti-4-placed.png` });
      const placed = bench.lms.deepLinkReturns.at(-1)!;
      if (!placed.ok) throw new Error(placed.error);
      expect(placed.links[0]!.custom).toEqual({ exam_id: bench.examId });

      await tool.locator(`a[href*="${placed.links[0]!.id}"]`).click();
      await page.waitForURL((url) => url.pathname.startsWith("/course/"));
      const [exam] = await Promise.all([context.waitForEvent("page"), page.locator("#launch").click()]);
      await exam.waitForURL((url) => url.pathname === `/exam/${bench.examId}`);
      await exam.waitForLoadState();
      await exam.screenshot({ path: `${ARTIFACTS}/lti-5-placed-exam.png` });
      expect(await exam.textContent("body")).toMatch(/sam@lms\.example|Sam/);
      expect(bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused")).toEqual([]);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, 90_000);
});
