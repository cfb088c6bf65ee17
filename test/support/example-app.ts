/**
 * The example app over real HTTP, on an embedded emulator hosting both schools (North High
 * on this run's canary key, South College on a key of the emulator's own), listening on
 * 127.0.0.1 port 0. The app loads the package by its name, i.e. from dist/ (built by
 * global-setup), like an integrator's app would. Used by test/example-app/ and, with a
 * browser beside it, by example-app-browser.ts.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, expect } from "vitest";
import { memoryStore } from "express-oral-assessments";
import { startEmulator, type Emulator, type EmulatorOptions } from "express-oral-assessments/emulator";
import { createExampleApp, type ExampleAppOptions, type ExampleSchool } from "../../example-app/app.js";
import { SCHOOLS } from "../../example-app/schools.js";
import { createDemoUsers } from "../../example-app/users.js";
import { TEST_KEY } from "./keys.js";

export interface RunningExampleApp {
  emulator: Emulator;
  /** Each school as the app takes it: its emulator key, the emulator's URL, its exam host. */
  schools: ExampleSchool[];
  /** The app's origin, http://127.0.0.1:<port>. */
  base: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 port 0; resolves the origin and a closer that drops open connections. */
export async function listenExampleApp(app: ReturnType<typeof createExampleApp>): Promise<{ base: string; close(): Promise<void> }> {
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The emulator with both schools and the app on it; `emulator` and `app` add to the defaults. */
export async function startExampleApp(
  users: ExampleAppOptions["users"],
  extra: { emulator?: Partial<EmulatorOptions>; app?: Partial<ExampleAppOptions> } = {},
): Promise<RunningExampleApp> {
  const emulator = await startEmulator({ port: 0, organizations: [{ ...SCHOOLS[0]!, testKeys: [TEST_KEY] }, { ...SCHOOLS[1]! }], ...extra.emulator });
  const schools = SCHOOLS.map(({ id, name }) => ({ id, name, apiKey: emulator.organization(id).testKey, baseUrl: emulator.url, examHost: emulator.organization(id).examHost }));
  const listening = await listenExampleApp(createExampleApp({ schools, store: memoryStore(), users, ...extra.app }));
  return {
    emulator, schools, base: listening.base,
    async close() {
      await listening.close();
      await emulator.close();
    },
  };
}

export const PASSWORD = "correct horse battery staple";

/** What a test file of test/example-app/ works with, filled in by its beforeAll. */
export interface ExampleAppFixture extends RunningExampleApp {
  users: ReturnType<typeof createDemoUsers>;
  /** A cookie agent signed in as `username` (the demo users' PASSWORD). */
  loggedIn(username: string): Promise<ReturnType<typeof request.agent>>;
}

/** Starts the example app before the file's tests and stops it after them. */
export function useExampleApp(): ExampleAppFixture {
  const users = createDemoUsers({ password: PASSWORD });
  const fixture = {
    users,
    async loggedIn(username: string) {
      const agent = request.agent(fixture.base);
      const res = await agent.post("/login").type("form").send({ username, password: PASSWORD });
      expect(res.status).toBe(303);
      return agent;
    },
  } as ExampleAppFixture;
  beforeAll(async () => {
    Object.assign(fixture, await startExampleApp(users));
  });
  afterAll(async () => {
    await fixture.close?.();
  });
  return fixture;
}
