/**
 * The example app on the embedded emulator (its two schools) with Chromium beside it, for
 * the browser tests. Every dashboard refresh lists courses, classes, exams and role-plays:
 * a browser flow makes more than a dev key's 60 calls a minute, and its last step would
 * wait for the window instead of testing its form. Pacing is tested in test/platform and
 * test/storm; here each school's key gets a prod-sized budget on both sides.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { memoryStore } from "express-oral-assessments";
import { startEmulator, type Emulator } from "express-oral-assessments/emulator";
import { createExampleApp } from "../../example-app/app.js";
import { SCHOOLS } from "../../example-app/schools.js";
import type { createDemoUsers } from "../../example-app/users.js";
import { TEST_KEY } from "./keys.js";

export const CHROMIUM = "/usr/bin/chromium";

export interface ExampleAppInBrowser {
  emulator: Emulator;
  /** The app's origin, http://127.0.0.1:<port>. */
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startExampleAppInBrowser(users: ReturnType<typeof createDemoUsers>): Promise<ExampleAppInBrowser> {
  const emulator = await startEmulator({
    port: 0, organizations: [{ ...SCHOOLS[0]!, testKeys: [TEST_KEY] }, { ...SCHOOLS[1]! }], rateLimits: { dev: 600 },
  });
  const schools = SCHOOLS.map(({ id, name }) => ({ id, name, apiKey: emulator.organization(id).testKey, baseUrl: emulator.url, examHost: emulator.organization(id).examHost }));
  const app = createExampleApp({ schools, organizationClient: { rateLimitPerMinute: 600 }, store: memoryStore(), users });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
      "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  return {
    emulator, base, browser,
    async close() {
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await emulator.close();
    },
  };
}
