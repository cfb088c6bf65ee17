/**
 * Debian's Chromium for the browser tests, started one way: the flags, how long a step may
 * wait, and screenshots. On a loaded machine (load 10–15 with other test files beside) a
 * form's answer or a cross-site navigation took more than the 15 s the tests used to allow,
 * and Chromium at times answered a screenshot with "Unable to capture screenshot".
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
/** Screenshots go here (gitignored) for a person to look at. */
export const ARTIFACTS = "test-artifacts";
/**
 * How long one step may wait for what it expects (an element, a URL, a new window): every
 * wait is for a state, so this only bounds a failure, and a test that waits for a few
 * steps gets a test timeout of several STEP_MS.
 */
export const STEP_MS = 60_000;

/**
 * Headless, as root (no sandbox), no GPU, /tmp rather than a small /dev/shm; and no
 * connection of its own (QUIC, first-run, background networking, component updates,
 * sync): on this machine's closed network those are refused, many at a time.
 */
const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
  "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/** Chromium with the flags above and `extraArgs` (e.g. `--test-third-party-cookie-phaseout`). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs] });
}

/** A fresh context (its own cookies) whose every wait may take STEP_MS. */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(STEP_MS);
  return context;
}

/**
 * A screenshot of a page or an element at `path`, for a person to look at. It is not an
 * assertion: when Chromium cannot capture one, it tries once more, then warns and goes on.
 */
export async function screenshot(target: Page | Locator, path: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 1; ; attempt++) {
    try {
      await ("goto" in target ? target.screenshot({ path, ...options }) : target.screenshot({ path }));
      return;
    } catch (error) {
      if (attempt === 2) {
        console.warn(`screenshot ${path} not taken: ${(error as Error).message.split("\n")[0]}`);
        return;
      }
    }
  }
}
