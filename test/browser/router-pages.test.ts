/**
 * The router's own pages in a real browser (Debian's Chromium driven by playwright-core):
 * they render styled under their strict CSP (the inline style's hash is right), with no
 * violation, and their way back works.
 */
import { describe, expect, it } from "vitest";
import { launchChromium, newContext, STEP_MS } from "../support/chromium.js";
import { chromiumOrSkip } from "../support/example-app-browser.js";
import { startStack } from "../support/stack.js";

const haveChromium = chromiumOrSkip();

describe.runIf(haveChromium)("the router's built-in pages in a browser", () => {
  it("render styled under their CSP (the style's hash is right), with no violation and a working way back", async () => {
    const stack = await startStack({ router: { homeUrl: "/home" } });
    const browser = await launchChromium();
    try {
      const tab = await (await newContext(browser)).newPage();
      const violations: string[] = [];
      tab.on("console", (message) => { if (/Content Security Policy/i.test(message.text())) violations.push(message.text()); });
      const res = await tab.goto(`${stack.app.url}/oral/launch/abc123`);
      expect(res?.status()).toBe(401);
      expect(await res?.headerValue("content-security-policy")).toContain("default-src 'none'");
      // 36rem: the inline style applied, which the CSP allows only when its hash matches.
      expect(await tab.evaluate("getComputedStyle(document.body).maxWidth")).toBe("576px");
      expect(violations).toEqual([]);
      await Promise.all([tab.waitForURL(`${stack.app.url}/home`), tab.click("text=Back to the home page")]);
    } finally {
      await browser.close();
      await stack.close();
    }
  }, 4 * STEP_MS);
});
