/**
 * The key canary. First it proves it can fail (it finds a key hidden in an error's
 * cause, a JSON body, a stack); then it drives every kind of failure through the client
 * and checks the error, its JSON, its stack, the log lines and the client object itself.
 * The setup file (key-canary.setup.ts) additionally scans all output of every test file.
 */
import { startTestEmulator } from "./support/emulator.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, PlatformError, type PlatformClient } from "../src/index.js";
import { type Emulator } from "../src/emulator/index.js";
import { assertNoKey, captureLogger, findKey } from "./support/canary.js";
import { LIVE_KEY, TEST_KEY, WRONG_KEY } from "./support/keys.js";

let emulator: Emulator;
beforeAll(async () => { emulator = await startTestEmulator(); });
afterAll(async () => { await emulator.close(); });

describe("the canary itself", () => {
  it("finds a key in a message, a cause, a JSON body and a stack", () => {
    expect(findKey(new Error(`boom ${TEST_KEY}`))).toBeDefined();
    expect(findKey(new Error("outer", { cause: { headers: { Authorization: `Bearer ${LIVE_KEY}` } } }))).toBeDefined();
    expect(findKey({ config: { headers: { authorization: `Bearer ${WRONG_KEY}` } } })).toBeDefined();
    const e = new Error("clean");
    e.stack = `Error: clean\n    at ${TEST_KEY}`;
    expect(findKey(e)).toBeDefined();
    expect(findKey(new Error("clean"))).toBeUndefined();
  });
});

describe("no failure of the client carries the key", () => {
  const logger = captureLogger();
  let client: PlatformClient;
  beforeAll(() => { client = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, timeoutMs: 300, maxRetries: 1, logger }); });
  afterAll(() => client.close());

  async function failure(fn: () => Promise<unknown>): Promise<unknown> {
    try { await fn(); } catch (error) { return error; }
    throw new Error("expected a failure");
  }

  /** Each failure the platform can answer with, set up on the emulator. */
  const FAILURES: [string, () => void][] = [
    ["400", () => emulator.fault({ type: "status", status: 400 })],
    ["404", () => {}],
    ["500", () => emulator.fault({ type: "status", status: 500, count: 3 })],
    ["hang", () => emulator.fault({ type: "hang", count: 3 })],
    ["reset", () => emulator.fault({ type: "reset", count: 3 })],
    ["malformed", () => emulator.fault({ type: "malformed", count: 3 })],
  ];
  afterEach(() => { emulator.clearFaults(); });

  /** Drives one failure through `through`; returns what it threw. */
  async function platformFailure(through: PlatformClient, arrange: () => void): Promise<unknown> {
    arrange();
    try {
      return await failure(() => through.courses.retrieve("000000000000000000000000"));
    } finally {
      emulator.clearFaults();
    }
  }

  /** The failures that do not come from the platform's answer: a refused key, a closed port, bad input. */
  async function otherFailures(through: PlatformClient, log: typeof logger): Promise<[string, unknown][]> {
    const wrong = createPlatformClient({ apiKey: WRONG_KEY, baseUrl: emulator.url, logger: log });
    const refused = await failure(() => wrong.courses.list());
    wrong.close();
    const closed = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9", maxRetries: 0, logger: log });
    const unreachable = await failure(() => closed.courses.list());
    closed.close();
    const invalid = await failure(() => through.classes.create("c", { name: "", startDate: "x", endDate: "y" }));
    return [["a 401 error", refused], ["a network error", unreachable], ["an invalid-request error", invalid]];
  }

  it.each(FAILURES)("%s", async (_name, arrange) => {
    const error = await platformFailure(client, arrange);
    expect(error).toBeInstanceOf(PlatformError);
    assertNoKey(error, "the error");
  });

  it("a refused key, a closed port and bad input", async () => {
    for (const [what, error] of await otherFailures(client, logger)) assertNoKey(error, what);
  });

  it("a configuration error that is about the key", () => {
    let error: unknown;
    try { createPlatformClient({ apiKey: LIVE_KEY, baseUrl: "not a url", env: "dev" }); } catch (e) { error = e; }
    expect(error).toBeDefined();
    assertNoKey(error, "the configuration error");
    expect(String((error as Error).message)).toContain("svc_live_…");
  });

  it("printing the client object", () => {
    assertNoKey(client, "the client object");
    expect(client.redactedKey).toMatch(/^svc_test_…/);
  });

  // Drives every failure above itself, through a client and logger of its own, so it
  // reads their log lines whichever tests ran before it.
  it("the log lines of every failure above", async () => {
    const lines = captureLogger();
    const own = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, timeoutMs: 300, maxRetries: 1, logger: lines });
    try {
      for (const [, arrange] of FAILURES) await platformFailure(own, arrange);
      await otherFailures(own, lines);
    } finally {
      own.close();
    }
    expect(lines.lines.length).toBeGreaterThan(0);
    assertNoKey(lines.lines, "the log lines");
  });
});
