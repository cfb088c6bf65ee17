/**
 * The one way tests start an emulator: on 127.0.0.1 port 0, with this run's canary keys
 * (test key for dev, live key for prod), plus whatever the test overrides.
 */
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator/index.js";
import { LIVE_KEY, TEST_KEY } from "./keys.js";

export function startTestEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ testKeys: [TEST_KEY], liveKeys: [LIVE_KEY], ...options });
}
