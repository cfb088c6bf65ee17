/**
 * An LMS launch in a real browser (Debian's Chromium): the LMS emulator on one site
 * (http://localhost:PORT) frames the tool on another (http://127.0.0.1:PORT), with
 * third-party cookies blocked, so the state cookie cannot travel. The launch still
 * succeeds through Platform Storage (postMessage to the LMS's forwarding frame), and the
 * student's *Open the exam* lands on the exam page, signed in, in a new window.
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
      // the Platform Storage round), each time to another renderer: a locator resolved on
      // an earlier document can miss the last one, so the frame is found by its address
      // and content, read afresh until the launch page is there.
      const toolFrame = async () => {
        for (const f of page.frames()) {
          if (new URL(f.url()).pathname.endsWith("/lti/launch") && (await f.content().catch(() => "")).includes("Open the exam")) return f;
        }
        return undefined;
      };
      let frame = await toolFrame();
      for (const until = Date.now() + 30_000; !frame && Date.now() < until; frame = await toolFrame()) await new Promise((r) => setTimeout(r, 100));
      if (!frame) throw new Error("the tool's frame never showed the launch page");
      await page.screenshot({ path: `${ARTIFACTS}/lti-1-course-page.png` });
      // The state came back through Platform Storage, not the cookie.
      expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_platform_storage_check")).toBe(true);
      expect(bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused")).toEqual([]);

      const [exam] = await Promise.all([context.waitForEvent("page"), frame!.locator("#open").click()]);
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
});
