/**
 * The LMS emulator in a real browser: Chromium opened on an LTI bench, and the tool's frame
 * found by what it shows. The LMS (http://localhost:PORT) frames the tool (another site,
 * http://127.0.0.1:PORT), so each step of a launch (login, the LMS's form post, Platform
 * Storage) is a cross-site navigation into another renderer: neither a Frame taken earlier
 * nor a locator waiting from an earlier document is sure to see the last one, so frames are
 * looked up afresh, by what they show, each time.
 *
 * A wait that fails says where the launch stopped: the refused check (the tool's log line
 * `lti_refused`; its refusal page only says "This launch could not be accepted"), what
 * each frame showed, every navigation the browser sent with its answer, and the tool's log
 * events.
 */
import type { Browser, BrowserContext, Frame, Page, Request } from "playwright-core";
import { expect } from "vitest";
import { launchChromium, newContext, STEP_MS } from "./chromium.js";
import type { LtiBench } from "./lti.js";

export interface LmsBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/**
 * The tool's frame in the LMS's renderer process, not an out-of-process frame. With site
 * isolation (Chromium's default) each cross-site step of a launch moves the frame to
 * another process, and Playwright's view of a frame that moves while it is queried can
 * stick (a query on it hangs; puppeteer#10715 is the same race): at load 8–12 the tool
 * answered the launch (200, logged `lti_launch`) while the frame stayed at the LMS's /auth,
 * with no content, for 60 s, in both attempts. Which process renders a frame changes
 * nothing the tool can see: cookies (third-party blocking, CHIPS partitions), postMessage
 * and navigations behave the same.
 */
const ONE_PROCESS_FOR_FRAMES = ["--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process"];

/** Chromium on `bench` (1100×800, `extraArgs` added to the flags), one page, its navigations traced for failures. */
export async function openLmsBrowser(bench: LtiBench, extraArgs: string[] = []): Promise<LmsBrowser> {
  const browser = await launchChromium([...ONE_PROCESS_FOR_FRAMES, ...extraArgs]);
  const context = await newContext(browser, { viewport: { width: 1100, height: 800 } });
  traces.set(context, traceOf(context, bench));
  return { browser, context, page: await context.newPage() };
}

/** The checks the tool refused (its log lines `lti_refused`, which hold no token or key), each with its status and detail. */
export function refusedChecks(bench: LtiBench): string[] {
  return bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused")
    .map(({ obj: { event: _, check, ...detail } }) => `${String(check)} ${JSON.stringify(detail)}`);
}

/** Fails naming each refused check, if the tool refused anything. */
export function expectNoRefusal(bench: LtiBench): void {
  const checks = refusedChecks(bench);
  expect(checks, `the tool refused the launch: check ${checks.join(", ")}`).toEqual([]);
}

/**
 * The frame that shows `selector` (with `text`, when given), in `where` (a page, or every
 * window of a context), looked up every 100 ms for up to STEP_MS. Fails at once when the
 * tool refused the launch, rather than waiting out the time for a page that will not come.
 */
export async function frameShowing(bench: LtiBench, where: Page | BrowserContext, selector: string, text?: string): Promise<Frame> {
  const context = "pages" in where ? where : where.context();
  const frames = () => ("pages" in where ? where.pages() : [where]).flatMap((p) => p.frames());
  const report = async (why: string) => {
    // A frame in the middle of a navigation can keep a query waiting: each is bounded, so a failure is reported, not a test time-out.
    const shown = await Promise.all(frames().map(async (f) => `${f.url()}: ${(await within(f.content(), "(no content)")).replace(/\s+/g, " ").slice(0, 300)}`));
    return new Error(`${why}; frames:\n${shown.join("\n")}\n${traces.get(context)?.() ?? ""}`);
  };
  for (const until = Date.now() + STEP_MS; Date.now() < until;) {
    const refused = refusedChecks(bench);
    if (refused.length > 0) throw await report(`the tool refused the launch (check ${refused.join(", ")}) while waiting for ${selector}`);
    for (const frame of frames()) {
      const found = await within(frame.$(selector), null);
      if (found && (text === undefined || ((await within(found.textContent(), "")) ?? "").includes(text))) return frame;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw await report(`no frame showed ${selector}${text ? ` "${text}"` : ""} within ${STEP_MS / 1000} s (refused checks: ${refusedChecks(bench).join(", ") || "none"})`);
}

/** Each context's trace (`traceOf`), for `frameShowing`'s failures. */
const traces = new WeakMap<BrowserContext, () => string>();

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
