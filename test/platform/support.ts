/**
 * Shared set-up for the platform client tests: an emulator on port 0 with this run's
 * canary keys, a client wired to it with a capture logger and short retry delays, and a
 * helper that awaits a rejection and checks the error for the key.
 */
import { createServer } from "node:net";
import type { Emulator, EmulatorOptions } from "../../src/emulator/index.js";
import { startTestEmulator } from "../support/emulator.js";
import { createPlatformClient } from "../../src/platform/index.js";
import type { PlatformClient, PlatformClientOptions } from "../../src/platform/index.js";
import { assertNoKey, captureLogger } from "../support/canary.js";
import { TEST_KEY } from "../support/keys.js";

/** The shared emulator start (`support/emulator.ts`), under the name these tests use. */
export function emulatorWith(options: EmulatorOptions = {}): Promise<Emulator> {
  return startTestEmulator(options);
}

export type TestClient = PlatformClient & { logger: ReturnType<typeof captureLogger> };

/** A client for `baseUrl` with fast retries (tests measure behaviour, not patience). */
export function clientFor(baseUrl: string, overrides: Partial<PlatformClientOptions> = {}): TestClient {
  const logger = captureLogger();
  const client = createPlatformClient({
    apiKey: TEST_KEY,
    baseUrl,
    logger,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 100,
    ...overrides,
  });
  return Object.assign(client, { logger });
}

/** Awaits a promise that must reject; returns the error after checking it for the key. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    assertNoKey(error, "a caught error");
    return error as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to reject, but it resolved");
}

/** A port nothing listens on: bound, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export { maxInAnyWindow } from "../../bench/lib/windows.js";
