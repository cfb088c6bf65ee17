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
import { existsSync, mkdirSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type Frame, type Page, type Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { linkCourse, startLtiBench, type LtiBench } from "../support/lti.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = "test-artifacts";
/** How long a frame may take to show what a step waits for (several cross-site navigations on a loaded machine). */
const STEP_MS = 60_000;
/** A whole test: a bench, a browser and a few steps. */
const TEST_MS = 240_000;

/** The checks the tool refused (its log lines `lti_refused`, which hold no token or key), each with its status and detail, for a failure's message. */
function refusedChecks(bench: LtiBench): string[] {
  return bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused")
    .map(({ obj: { event: _, check, ...detail } }) => `${String(check)} ${JSON.stringify(detail)}`);
}

/** Fails naming each refused check, if the tool refused anything. */
function expectNoRefusal(bench: LtiBench): void {
  const checks = refusedChecks(bench);
  expect(checks, `the tool refused the launch: check ${checks.join(", ")}`).toEqual([]);
}

// One retry: on a loaded machine the cross-site frame at times never reached the picker or
// the launch page within 30 s (an open finding; the error lists the refused check, if
// any, what each frame showed, and the trace: every navigation the browser sent and what
// came back, and the tool's log events). Now each step waits up to STEP_MS. It failed once
// more in a clean-clone CI run (1017947, idle machine), the frame left at the tool's
// launch, then at the LMS's /auth; the trace is there to say which request never came back.
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
    mkdirSync(ARTIFACTS, { recursive: true });
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
      // the Platform Storage round), each time to another renderer: neither a Frame taken
      // earlier nor a frame locator waiting from an earlier document is sure to see the
      // last one (both timed out now and then), so the frame is looked up afresh, by what
      // it shows, each time it is needed.
      const tool = await frameShowing(bench, page, "#open");
      await page.screenshot({ path: `${ARTIFACTS}/lti-1-course-page.png` });
      // The state came back through Platform Storage, not the cookie.
      expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_platform_storage_check")).toBe(true);
      expectNoRefusal(bench);
      // Read back, the login's value was removed from the LMS's Platform Storage (its allowance is small).
      const forwarding = page.frames().find((f) => f.name() === "post_message_forwarding")!;
      await expect.poll(() => forwarding.evaluate("Object.keys(window.store)"), { timeout: STEP_MS, interval: 200 }).toEqual([]);

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
  }, TEST_MS);

  it("lets an instructor place an exam with the picker in the LMS's frame, and a student then reaches it", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const bench = await startLtiBench();
    const { browser, context, page } = await openBrowser(bench);
    try {
      await page.goto(bench.lms.addExamPageUrl());
      // As above: the tool is found through the course page's iframe element.
      const picker = await frameShowing(bench, page, 'input[name="pick"]');
      await page.screenshot({ path: `${ARTIFACTS}/lti-3-picker.png` });
      await picker.locator(`button[value="${bench.examId}"]`).click();
      const tool = await frameShowing(bench, page, "h1", "Added to the course");
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
      expectNoRefusal(bench);
    } finally {
      await browser.close();
      await bench.close();
    }
  }, TEST_MS);
});

/**
 * The frame of `page` that shows `selector` (with `text`, when given), looked up afresh
 * every 100 ms for up to STEP_MS: the LMS's tool frame is replaced by each cross-site
 * navigation. Fails at once when the tool refused the launch (its log names the check),
 * rather than waiting out the time for a page that will not come.
 */
async function frameShowing(bench: LtiBench, page: Page, selector: string, text?: string): Promise<Frame> {
  // A frame in the middle of a navigation can keep a query waiting: each is bounded, so a failure is reported, not a test time-out.
  const framesSeen = async () => (await Promise.all(page.frames().map(async (f) => `${f.url()}: ${(await within(f.content(), "(no content)")).replace(/\s+/g, " ").slice(0, 300)}`))).join("\n");
  for (const until = Date.now() + STEP_MS; Date.now() < until;) {
    const refused = refusedChecks(bench);
    if (refused.length > 0) throw new Error(`the tool refused the launch (check ${refused.join(", ")}) while waiting for ${selector}; frames:\n${await framesSeen()}\n${traces.get(page)?.() ?? ""}`);
    for (const frame of page.frames()) {
      const found = await within(frame.$(selector), null);
      if (found && (text === undefined || ((await within(found.textContent(), "")) ?? "").includes(text))) return frame;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no frame showed ${selector}${text ? ` "${text}"` : ""} within ${STEP_MS / 1000} s (refused checks: ${refusedChecks(bench).join(", ") || "none"}); frames:\n${await framesSeen()}\n${traces.get(page)?.() ?? ""}`);
}

/**
 * What the browser's documents did (each navigation request of any frame: when it was
 * sent, its method and path, and its answer or failure), and what the tool logged, for a
 * failure's message: a step that never came says where the chain stopped. Paths only,
 * no query or body (the launch's body is the id token).
 */
function traceOf(context: BrowserContext, bench: LtiBench): () => string {
  const start = Date.now();
  const steps: string[] = [];
  const at = () => `${String(Date.now() - start).padStart(6)} ms`;
  // A new window's first request comes before its frame exists (Playwright then throws).
  const frameName = (r: Request) => { try { return r.frame().name() || "-"; } catch { return "(new window)"; } };
  const where = (url: string) => { const u = new URL(url); return `${u.host}${u.pathname}`; };
  context.on("request", (r) => { if (r.isNavigationRequest()) steps.push(`${at()} → ${r.method()} ${where(r.url())} (frame ${frameName(r)})`); });
  context.on("requestfinished", (r) => { if (r.isNavigationRequest()) void r.response().then((res) => steps.push(`${at()} ← ${res?.status() ?? "?"} ${where(r.url())}`)).catch(() => steps.push(`${at()} ← (no response) ${where(r.url())}`)); });
  context.on("requestfailed", (r) => { if (r.isNavigationRequest()) steps.push(`${at()} ✗ ${where(r.url())}: ${r.failure()?.errorText ?? "?"}`); });
  return () => {
    const logged = bench.stack.logger.lines.map(({ level, obj }) => `${level} ${String(obj.event ?? obj.msg ?? "?")}${obj.status ? ` ${String(obj.status)}` : ""}${obj.path ? ` ${String(obj.path)}` : ""}${obj.check ? ` check=${String(obj.check)}` : ""}`);
    return `browser navigations:\n${steps.join("\n")}\ntool log events:\n${logged.join("\n")}`;
  };
}

/** `promise`'s value, or `fallback` if it fails or takes more than 5 s. */
function within<T, F>(promise: Promise<T>, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => { timer = setTimeout(() => resolve(fallback), 5_000); });
  return Promise.race([promise.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}

/** Each page's trace (`traceOf`), for `frameShowing`'s failures. */
const traces = new WeakMap<Page, () => string>();

/** Debian's Chromium with third-party cookies phased out (the state cookie cannot travel), one page. */
async function openBrowser(bench: LtiBench, extraArgs: string[] = []): Promise<{ browser: Browser; context: BrowserContext; page: Page }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--test-third-party-cookie-phaseout", "--disable-quic", "--no-first-run", "--disable-background-networking", ...extraArgs],
  });
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  // Clicks, new windows and URL waits on a loaded machine: as long as a step may take.
  context.setDefaultTimeout(STEP_MS);
  const page = await context.newPage();
  traces.set(page, traceOf(context, bench));
  return { browser, context, page };
}
