/**
 * The example app on the embedded emulator (its two schools) with Chromium beside it, for
 * the browser tests. Every dashboard refresh lists courses, classes, exams and role-plays:
 * a browser flow makes more than a dev key's 60 calls a minute, and its last step would
 * wait for the window instead of testing its form. Pacing is tested in test/platform and
 * test/storm; here each school's key gets a prod-sized budget on both sides.
 */
import { existsSync, mkdirSync } from "node:fs";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "express-oral-assessments/emulator";
import { createDemoUsers } from "../../example-app/users.js";
import { ARTIFACTS, CHROMIUM, launchChromium, newContext } from "./chromium.js";
import { startExampleApp } from "./example-app.js";

export { ARTIFACTS, CHROMIUM };
/** Every demo user's password in the browser tests. */
export const BROWSER_PASSWORD = "browser-test-password";

export interface ExampleAppInBrowser {
  emulator: Emulator;
  /** The app's origin, http://127.0.0.1:<port>. */
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startExampleAppInBrowser(users: ReturnType<typeof createDemoUsers>): Promise<ExampleAppInBrowser> {
  const running = await startExampleApp(users, { emulator: { rateLimits: { dev: 600 } }, app: { organizationClient: { rateLimitPerMinute: 600 } } });
  const { emulator, base } = running;
  const browser = await launchChromium();
  return {
    emulator, base, browser,
    async close() {
      await browser.close();
      await running.close();
    },
  };
}

/** True when Chromium is installed. Without it: a loud warning, or in CI (CI set) a failing test. */
export function chromiumOrSkip(): boolean {
  const haveChromium = existsSync(CHROMIUM);
  if (!haveChromium && !process.env.CI) {
    console.warn(
      "\n" + "!".repeat(78) + "\n" +
      `!! BROWSER TEST SKIPPED: ${CHROMIUM} is missing. Install it with:\n` +
      "!!   apt-get update && apt-get install -y chromium\n" +
      "!! (In CI, where CI is set, this test fails instead of skipping.)\n" +
      "!".repeat(78) + "\n",
    );
  }
  if (!haveChromium && process.env.CI) {
    describe("browser prerequisites", () => {
      it("has Debian's Chromium at /usr/bin/chromium (CI must install it: apt-get install -y chromium)", () => {
        expect(existsSync(CHROMIUM), `${CHROMIUM} is missing`).toBe(true);
      });
    });
  }
  return haveChromium;
}

/** Starts the example app and Chromium before the file's tests (an artifacts folder ready), and stops them after. */
export function useExampleAppInBrowser(): ExampleAppInBrowser {
  const fixture = {} as ExampleAppInBrowser;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    Object.assign(fixture, await startExampleAppInBrowser(createDemoUsers({ password: BROWSER_PASSWORD })));
  });
  afterAll(async () => {
    await fixture.close?.();
  });
  return fixture;
}

/** A fresh browser context (its own cookies; every wait up to STEP_MS), and a tab in it. */
export async function openTab(browser: Browser, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; tab: Page }> {
  const context = await newContext(browser, options);
  return { context, tab: await context.newPage() };
}

/** Logs in on the app's login page as `username`; waits for the navigation, or for `arrivesAt` when given. */
export async function logInTab(tab: Page, base: string, username: string, arrivesAt?: string): Promise<void> {
  await tab.goto(`${base}/login`);
  await tab.fill("#username", username);
  await tab.fill("#password", BROWSER_PASSWORD);
  await Promise.all([arrivesAt ? tab.waitForURL(arrivesAt) : tab.waitForNavigation(), tab.click("form.login button[type=submit]")]);
}
