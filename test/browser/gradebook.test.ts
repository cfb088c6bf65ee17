/**
 * The LMS gradebook in a real browser (Debian's Chromium): an instructor places an exam
 * with the picker in the LMS emulator's frame (the LMS makes its line item), a student
 * opens it from the course in a new window and reaches the exam, and the emulator's
 * gradebook page shows the student as Started; the exam site's redirect back to
 * `<mount>/lti/return` (the return mark travels on that top-level navigation) turns it
 * into Submitted, pending manual grading. Screenshots go to test-artifacts/.
 */
import { existsSync, mkdirSync } from "node:fs";
import { chromium, type Frame, type Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startLtiBench } from "../support/lti.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = "test-artifacts";

describe.runIf(existsSync(CHROMIUM))("the LMS gradebook in a browser", { retry: 1 }, () => {
  it("shows the student Started after the launch, and Submitted after the return", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const bench = await startLtiBench({ gradebook: { pollMs: 50 } });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run", "--disable-background-networking"],
    });
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    try {
      await page.goto(bench.lms.addExamPageUrl());
      const picker = await frameShowing(page, 'input[name="pick"]');
      await picker.locator(`button[value="${bench.examId}"]`).click();
      const tool = await frameShowing(page, "h1", "Added to the course");
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
      await expect.poll(cell, { timeout: 20_000, interval: 200 }).toBe("Started");
      expect(await book.locator("tbody th").first().textContent()).toBe("Sam Student");
      await book.screenshot({ path: `${ARTIFACTS}/gradebook-1-started.png` });

      // The exam site's post-exam redirect, in the exam's own window: a navigation the exam
      // page starts, not a typed URL. (Here the emulator's exam host is on 127.0.0.1 like the
      // tool, so the same site: this does not tell SameSite=Lax from Strict.)
      const back = `${bench.stack.app.url}/oral/lti/return`;
      await Promise.all([exam.waitForURL(back), exam.evaluate(`window.location.href = ${JSON.stringify(back)}`)]);
      expect(await exam.textContent("body")).toContain("handed in");
      await expect.poll(cell, { timeout: 20_000, interval: 200 }).toBe("Submitted");
      expect(await book.locator("td.cell .grading").first().textContent()).toBe("PendingManual");
      await book.screenshot({ path: `${ARTIFACTS}/gradebook-2-submitted.png` });
    } finally {
      await browser.close();
      await bench.close();
    }
  }, 120_000);
});

/** The frame of `page` that shows `selector` (with `text`), looked up afresh: the LMS's tool frame is replaced by each cross-site navigation. */
async function frameShowing(page: Page, selector: string, text?: string): Promise<Frame> {
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    for (const frame of page.frames()) {
      const found = await frame.$(selector).catch(() => null);
      if (found && (text === undefined || ((await found.textContent().catch(() => "")) ?? "").includes(text))) return frame;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no frame showed ${selector}${text ? ` "${text}"` : ""} within 30 s`);
}
