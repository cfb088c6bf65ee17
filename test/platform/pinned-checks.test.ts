/**
 * Checks of the platform client that a mutation sweep found unpinned: each test here
 * fails when its one rule is broken (which statuses retry and map to which error kind,
 * the body limit a client applies by default, how a rate-limit pause and a stated limit
 * are read, how much of an upstream message or a short key may show). Real HTTP: the
 * emulator, or a local server on 127.0.0.1 for answers the emulator does not give.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import {
  ConfigurationError, PlatformBadResponseError, PlatformError, PlatformNetworkError, PlatformRateLimitError,
  PlatformTimeoutError, PlatformValidationError, createPlatformClient, createRateBudget, type RateBudget,
} from "../../src/platform/index.js";
import { listen, type Listening } from "../support/http.js";
import { clientFor, closedPort, emulatorWith, rejectionOf, type TestClient } from "./support.js";

const clients: TestClient[] = [];
const track = (client: TestClient): TestClient => {
  clients.push(client);
  return client;
};
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

describe("against the emulator", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await emulatorWith({ rateLimits: { dev: 120 } });
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.reset());

  it("retries a GET answered 408 (a request timeout is \"not now\"), succeeding on the next attempt", async () => {
    const client = track(clientFor(emulator.url));
    emulator.fault({ type: "status", status: 408, method: "GET" });
    const { data } = await client.courses.list();
    expect(data).toEqual([]);
    expect(emulator.requests.map((r) => r.status)).toEqual([408, 200]);
  });

  it("a launch call that cannot outwait a 429 pause within its deadline fails at once as rate limited, unsent", async () => {
    const client = track(clientFor(emulator.url, { maxRetries: 0 }));
    emulator.fault({ type: "status", status: 429, retryAfter: 3, method: "GET" });
    expect(await rejectionOf(client.courses.list())).toBeInstanceOf(PlatformRateLimitError);
    // The key is paused for 3 s; this launch has 1 s. Waiting in the queue would end in a
    // timeout at its deadline; the rule is the 429's own error, now, and nothing sent.
    const error = await rejectionOf(client.courses.list({ priority: "launch", deadlineMs: 1_000 }));
    expect(error).toBeInstanceOf(PlatformRateLimitError);
    expect(error).toMatchObject({ kind: "rate_limited", attempts: 0 });
    expect(emulator.requests).toHaveLength(1);
  });

  it("an attempt that a budget admits only after the call's deadline is not sent", async () => {
    // A budget slow to answer (a shared one on a loaded machine): its tryAcquire returns
    // 5 ms after the call began, past a 1 ms deadline. No clock window: the spin is exact.
    const inner = createRateBudget({ limit: 100 });
    const slow: RateBudget = {
      tryAcquire(priority) {
        const until = Date.now() + 5;
        while (Date.now() < until) { /* busy */ }
        return inner.tryAcquire!(priority);
      },
      acquire: (priority, signal) => inner.acquire(priority, signal),
      observe: (observation, call) => inner.observe(observation, call),
      pause: (until) => inner.pause(until),
      stats: () => inner.stats(),
      estimateWaitMs: (ahead) => inner.estimateWaitMs(ahead),
      pacingIntervalMs: (share) => inner.pacingIntervalMs(share),
    };
    const client = track(clientFor(emulator.url, { rateBudget: slow }));
    const error = await rejectionOf(client.courses.list({ deadlineMs: 1 }));
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(error.message).toContain("1 ms deadline");
    expect(emulator.requests).toHaveLength(0);
  });

  it("learns a higher X-RateLimit-Limit when the limit is the key's default", async () => {
    const client = track(clientFor(emulator.url));
    expect(client.rateStats().limit).toBe(60);
    await client.courses.list();
    expect(client.rateStats().limit).toBe(120);
  });

  it("keeps a rateLimitPerMinute the integrator chose when the platform states a higher one", async () => {
    const client = track(clientFor(emulator.url, { rateLimitPerMinute: 30 }));
    await client.courses.list();
    expect(client.rateStats().limit).toBe(30);
  });
});

describe("against a local server", () => {
  let server: Listening;
  let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  let hits = 0;
  beforeAll(async () => {
    server = await listen((req, res) => {
      hits += 1;
      answer(req, res);
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    hits = 0;
  });

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

  it("422 is a PlatformValidationError, like 400", async () => {
    answer = (_req, res) => json(res, 422, { error: { code: "unprocessable", message: "name is too odd", field: "name" } });
    const client = track(clientFor(server.url, { maxRetries: 0 }));
    const error = await rejectionOf(client.courses.create({ name: "Odd" }));
    expect(error).toBeInstanceOf(PlatformValidationError);
    expect(error).toMatchObject({ status: 422, kind: "validation", field: "name" });
  });

  it("cuts an upstream error message to 500 characters", async () => {
    const long = "x".repeat(5_000);
    answer = (_req, res) => json(res, 400, { error: { code: "validation_error", message: long } });
    const client = track(clientFor(server.url));
    const error = await rejectionOf(client.courses.list());
    expect(error.message).toContain(`${"x".repeat(500)}…`);
    expect(error.message).not.toContain("x".repeat(501));
    expect(error.message.length).toBeLessThan(600);
  });

  it("a 429 with X-RateLimit-Reset but no Retry-After pauses the key until that Reset", async () => {
    answer = (_req, res) => json(res, 429, { error: { code: "rate_limited", message: "slow down" } }, {
      "X-RateLimit-Reset": String(Math.ceil(Date.now() / 1000) + 20),
    });
    const client = track(clientFor(server.url, { maxRetries: 0, maxRetryAfterMs: 5_000 }));
    expect(await rejectionOf(client.courses.list())).toBeInstanceOf(PlatformRateLimitError);
    expect(client.rateStats().pausedUntil).toBeGreaterThan(Date.now() + 10_000);
    // Paused past maxRetryAfterMs: the next call is refused unsent, not sent into another 429.
    const next = await rejectionOf(client.courses.list());
    expect(next).toBeInstanceOf(PlatformRateLimitError);
    expect(next.attempts).toBe(0);
    expect(hits).toBe(1);
  });

  it("a client refuses a success body over 10 MiB by default, and is not fooled by a chunked one", async () => {
    const big = JSON.stringify({ data: { _id: "c1", name: "x".repeat(10 * 1024 * 1024 + 1) } });
    for (const chunked of [false, true]) {
      answer = (_req, res) => {
        // The client drops the socket once past the limit: a write racing that drop fails here.
        res.on("error", () => undefined);
        res.writeHead(200, { "Content-Type": "application/json", ...(chunked ? {} : { "Content-Length": String(Buffer.byteLength(big)) }) });
        res.end(big);
      };
      const client = track(clientFor(server.url));
      const error = await rejectionOf(client.courses.retrieve("c1"));
      expect(error).toBeInstanceOf(PlatformBadResponseError);
      expect(error.message).toContain("too large");
    }
  });

  it("reads a bare record that has a field named data as the record, not as an envelope", async () => {
    answer = (_req, res) => json(res, 200, { _id: "c1", name: "Bare", data: { note: "a field of the course" } }, { "X-Request-Id": "req_bare" });
    const client = track(clientFor(server.url));
    const { data, meta } = await client.courses.retrieve("c1");
    expect(data).toMatchObject({ _id: "c1", name: "Bare", data: { note: "a field of the course" } });
    expect(meta?.requestId).toBe("req_bare");
  });
});

describe("errors and keys", () => {
  it("a network failure is transient, and giving up on it is logged at warn", async () => {
    const port = await closedPort();
    const client = track(clientFor(`http://127.0.0.1:${port}`, { maxRetries: 0 }));
    const error = await rejectionOf(client.courses.list());
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect((error as unknown as PlatformError).isTransient).toBe(true);
    expect(client.logger.lines.find((l) => l.msg === "platform call failed")?.level).toBe("warn");
  });

  it("redacts a short key to its prefix alone: none of its own characters show", () => {
    const rest = randomBytes(8).toString("hex").slice(0, 10);
    const key = `svc_test_${rest}`;
    const client = createPlatformClient({ apiKey: key, baseUrl: "https://platform.example.com" });
    try {
      expect(client.redactedKey === "svc_test_…").toBe(true);
    } finally {
      client.close();
    }
    let error: unknown;
    try {
      createPlatformClient({ apiKey: key, baseUrl: "https://platform.example.com", env: "prod" });
    } catch (e) {
      error = e;
    }
    // Booleans only: a failure must not print the key or any part of it.
    expect(error instanceof ConfigurationError).toBe(true);
    expect((error as Error).message.includes("the key svc_test_… is a test key")).toBe(true);
    expect((error as Error).message.includes(rest.slice(-4))).toBe(false);
  });

  it.each([
    ["a space inside", " "],
    ["a NUL inside", "\u0000"],
    ["a DEL inside", "\u007f"],
  ])("refuses a key with %s, naming apiKey", (_what, bad) => {
    const key = `svc_test_${randomBytes(12).toString("hex")}${bad}${randomBytes(4).toString("hex")}`;
    let error: unknown;
    try {
      createPlatformClient({ apiKey: key, baseUrl: "https://platform.example.com" }).close();
    } catch (e) {
      error = e;
    }
    // Booleans only: a failure must not print the key.
    expect(error instanceof ConfigurationError).toBe(true);
    expect((error as ConfigurationError).problems.map((p) => p.option)).toEqual(["apiKey"]);
    expect((error as ConfigurationError).problems[0]!.message.includes("whitespace or control characters")).toBe(true);
    expect((error as Error).message.includes(key)).toBe(false);
  });
});
