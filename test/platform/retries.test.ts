/**
 * The retry policy over real sockets (429 waits, which methods are retried, how long a
 * hang may last, the overall deadline, aborts), then the policy's pure functions.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import {
  PlatformNetworkError, PlatformRateLimitError, PlatformServerError, PlatformTimeoutError,
} from "../../src/platform/index.js";
import { backoffDelay, decideRetry, parseRetryAfter, type RetryPolicy } from "../../src/platform/retry.js";
import { clientFor, emulatorWith, rejectionOf } from "./support.js";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await emulatorWith();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.reset());

const statuses = () => emulator.requests.map((r) => r.status);

describe("429", () => {
  it("waits for Retry-After, then retries and succeeds (GET)", async () => {
    const client = clientFor(emulator.url);
    emulator.fault({ type: "status", status: 429, retryAfter: 1 });
    const started = Date.now();
    const { data } = await client.courses.list();
    const elapsed = Date.now() - started;
    expect(data).toEqual([]);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(statuses()).toEqual([429, 200]);
    const requests = emulator.requests;
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(990);
    expect(client.logger.lines.some((l) => l.level === "debug" && l.obj.status === 429 && l.obj.attempt === 1)).toBe(true);
    client.close();
  });

  it("is retried for POST too (the platform did not act on it), creating one course", async () => {
    const client = clientFor(emulator.url);
    emulator.fault({ type: "status", status: 429, retryAfter: 1, method: "POST" });
    const started = Date.now();
    await client.courses.create({ name: "Once" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(statuses()).toEqual([429, 201]);
    expect(emulator.state().courses).toHaveLength(1);
    client.close();
  });

  it("a launch-priority call waits out 429s past maxRetries and maxRetryAfterMs, within its deadline", async () => {
    const client = clientFor(emulator.url, { maxRetries: 1, maxRetryAfterMs: 1000 });
    // Three 429s (more than maxRetries), the second asking for 2 s (more than maxRetryAfterMs).
    emulator.fault({ type: "status", status: 429, retryAfter: 1, method: "GET" });
    emulator.fault({ type: "status", status: 429, retryAfter: 2, method: "GET" });
    emulator.fault({ type: "status", status: 429, retryAfter: 1, method: "GET" });
    const { data } = await client.courses.list({ priority: "launch", deadlineMs: 20_000 });
    expect(data).toEqual([]);
    expect(statuses()).toEqual([429, 429, 429, 200]);
    // A normal call gives up as before.
    emulator.fault({ type: "status", status: 429, retryAfter: 1, method: "GET", count: 2 });
    expect(await rejectionOf(client.courses.list())).toBeInstanceOf(PlatformRateLimitError);
    // Its deadline still ends a launch's wait: a Retry-After past it is not waited out.
    emulator.fault({ type: "status", status: 429, retryAfter: 5, method: "GET" });
    expect(await rejectionOf(client.courses.list({ priority: "launch", deadlineMs: 3000 }))).toBeInstanceOf(PlatformRateLimitError);
    client.close();
  });

  it("gives up at once with retryAfter when Retry-After exceeds maxRetryAfterMs, and holds the next call unsent", async () => {
    const client = clientFor(emulator.url, { maxRetryAfterMs: 1000 });
    emulator.fault({ type: "status", status: 429, retryAfter: 5 });
    const started = Date.now();
    const error = await rejectionOf(client.courses.list());
    expect(Date.now() - started).toBeLessThan(2500); // honouring Retry-After would take 5 s
    expect(error).toBeInstanceOf(PlatformRateLimitError);
    expect(error).toMatchObject({ retryAfter: 5, attempts: 1 });
    // The key is over its limit for 5 s: a second call is not sent into another 429.
    const next = await rejectionOf(client.courses.list());
    expect(next).toBeInstanceOf(PlatformRateLimitError);
    expect(next.retryAfter).toBeGreaterThanOrEqual(4);
    expect(emulator.requests).toHaveLength(1);
    client.close();
  });
});

describe("5xx, resets and timeouts", () => {
  it("does not retry POST on 500", async () => {
    const client = clientFor(emulator.url);
    emulator.fault({ type: "status", status: 500, count: 3 });
    const error = await rejectionOf(client.courses.create({ name: "Not twice" }));
    expect(error).toBeInstanceOf(PlatformServerError);
    expect(error.attempts).toBe(1);
    expect(emulator.requests).toHaveLength(1);
    client.close();
  });

  it("retries GET on 503 and succeeds on the third attempt", async () => {
    const client = clientFor(emulator.url);
    emulator.fault({ type: "status", status: 503, count: 2 });
    const { data } = await client.courses.list();
    expect(data).toEqual([]);
    expect(statuses()).toEqual([503, 503, 200]);
    client.close();
  });

  it("retries PUT and DELETE on 502", async () => {
    const client = clientFor(emulator.url);
    const course = await client.courses.create({ name: "Idempotent" });
    emulator.fault({ type: "status", status: 502, method: "PUT" });
    emulator.fault({ type: "status", status: 502, method: "DELETE" });
    await client.courses.update(course.data._id, { name: "Changed" });
    await client.courses.del(course.data._id);
    expect(emulator.requests.filter((r) => r.method === "PUT").map((r) => r.status)).toEqual([502, 200]);
    expect(emulator.requests.filter((r) => r.method === "DELETE").map((r) => r.status)).toEqual([502, 204]);
    client.close();
  });

  it("gives up after maxRetries + 1 attempts on a persistent 500, recording the attempts", async () => {
    const client = clientFor(emulator.url, { maxRetries: 3 });
    emulator.fault({ type: "status", status: 500, count: 10 });
    const error = await rejectionOf(client.courses.list());
    expect(error).toBeInstanceOf(PlatformServerError);
    expect(error.attempts).toBe(4);
    expect(emulator.requests).toHaveLength(4);
    const failure = client.logger.lines.find((l) => l.msg === "platform call failed");
    expect(failure?.level).toBe("warn");
    expect(failure?.obj).toMatchObject({ method: "GET", path: "/courses", status: 500, attempts: 4 });
    client.close();
  });

  it("retries GET after a connection reset, but never POST", async () => {
    const client = clientFor(emulator.url);
    emulator.fault({ type: "reset", method: "GET" });
    await client.courses.list();
    expect(emulator.requests.filter((r) => r.method === "GET")).toHaveLength(2);
    emulator.fault({ type: "reset", method: "POST" });
    const error = await rejectionOf(client.courses.create({ name: "Maybe created" }));
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect(emulator.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    client.close();
  });

  it("ends a hang as PlatformTimeoutError within timeoutMs × attempts + slack", async () => {
    const timeoutMs = 300;
    const client = clientFor(emulator.url, { timeoutMs, maxRetries: 2 });
    emulator.fault({ type: "hang", count: 10 });
    const started = Date.now();
    const error = await rejectionOf(client.courses.list());
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(error.attempts).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs * 3);
    // 3 attempts + at most 2 backoffs of ≤ 100 ms (retryMaxDelayMs in tests) + slack.
    expect(elapsed).toBeLessThan(timeoutMs * 3 + 200 + 2500); // wide: a 4th attempt is ruled out by the count below
    expect(emulator.requests).toHaveLength(3);
    client.close();
  });

  it("does not retry a POST that hung: it may have been created", async () => {
    const client = clientFor(emulator.url, { timeoutMs: 200, maxRetries: 2 });
    emulator.fault({ type: "hang", count: 10 });
    const error = await rejectionOf(client.courses.create({ name: "Hung" }));
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(error.attempts).toBe(1);
    expect(emulator.requests).toHaveLength(1);
    client.close();
  });

  it("bounds the whole call by deadlineMs, retries and waits included", async () => {
    const client = clientFor(emulator.url, { timeoutMs: 500, maxRetries: 5, deadlineMs: 800 });
    emulator.fault({ type: "hang", count: 10 });
    const started = Date.now();
    const error = await rejectionOf(client.courses.list());
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(elapsed).toBeGreaterThanOrEqual(790);
    expect(elapsed).toBeLessThan(800 + 1700); // without the deadline: 6 attempts × 500 ms = 3 s
    expect(emulator.requests.length).toBeLessThanOrEqual(2);
    client.close();
  });

  it("a per-call deadlineMs overrides the client's", async () => {
    const client = clientFor(emulator.url, { timeoutMs: 5000 });
    emulator.fault({ type: "hang" });
    const started = Date.now();
    const error = await rejectionOf(client.courses.list({ deadlineMs: 250 }));
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    // The attempt was admitted at once and cut by the time left: the deadline's error, not the attempt's.
    expect(error.message).toContain("250 ms deadline (1 attempt started)");
    expect(Date.now() - started).toBeLessThan(2500); // the client's own timeout would be 5 s
    client.close();
  });

  it("an aborted signal rejects the call with the signal's reason and stops retrying", async () => {
    const client = clientFor(emulator.url);
    emulator.fault({ type: "hang", count: 10 });
    const controller = new AbortController();
    const pending = client.courses.list({ signal: controller.signal });
    // Once the call is at the platform (and hangs there): the abort must end a call under way.
    void waitUntil(() => emulator.requests.length === 1).then(() => controller.abort(new Error("browser went away")));
    const error = await rejectionOf(pending);
    expect(error.message).toBe("browser went away");
    expect(emulator.requests).toHaveLength(1);
    const already = await rejectionOf(client.courses.list({ signal: AbortSignal.abort() }));
    expect(already.name).toBe("AbortError");
    expect(emulator.requests).toHaveLength(1);
    client.close();
  });
});

describe("the policy's pure functions", () => {
  const policy: RetryPolicy = { maxRetries: 2, retryBaseDelayMs: 100, retryMaxDelayMs: 1000, maxRetryAfterMs: 30_000 };

  it("backoff is full jitter: uniform between 0 and min(cap, base × 2^n)", () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(0);
    expect(backoffDelay(0, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(200);
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
  });

  it("retries 429 for every method, 5xx and network failures only for GET, PUT and DELETE", () => {
    const decide = (method: string, failure: Parameters<typeof decideRetry>[0]["failure"]) =>
      decideRetry({ policy, method, attempt: 1, failure, msLeft: 60_000, random: () => 0.5 }).retry;
    for (const method of ["GET", "PUT", "DELETE", "POST", "PATCH"]) expect(decide(method, { type: "status", status: 429 })).toBe(true);
    for (const method of ["GET", "PUT", "DELETE"]) {
      expect(decide(method, { type: "status", status: 503 })).toBe(true);
      expect(decide(method, { type: "timeout" })).toBe(true);
      expect(decide(method, { type: "reset" })).toBe(true);
    }
    for (const method of ["POST", "PATCH"]) {
      expect(decide(method, { type: "status", status: 500 })).toBe(false);
      expect(decide(method, { type: "timeout" })).toBe(false);
      expect(decide(method, { type: "network" })).toBe(false);
    }
    expect(decide("GET", { type: "status", status: 404 })).toBe(false);
    expect(decide("GET", { type: "status", status: 501 })).toBe(false);
    expect(decide("GET", { type: "bad_response" })).toBe(false);
  });

  it("uses Retry-After as the delay, refuses one beyond the cap or the deadline, and stops after maxRetries", () => {
    const failure = { type: "status" as const, status: 429, retryAfterMs: 2000 };
    expect(decideRetry({ policy, method: "POST", attempt: 1, failure, msLeft: 10_000 })).toEqual({ retry: true, delayMs: 2000 });
    expect(decideRetry({ policy: { ...policy, maxRetryAfterMs: 1000 }, method: "GET", attempt: 1, failure, msLeft: 10_000 }))
      .toEqual({ retry: false, reason: "retry_after_too_long" });
    expect(decideRetry({ policy, method: "GET", attempt: 1, failure, msLeft: 1500 })).toEqual({ retry: false, reason: "deadline" });
    expect(decideRetry({ policy, method: "GET", attempt: 3, failure, msLeft: 10_000 })).toEqual({ retry: false, reason: "exhausted" });
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

/** Polls `condition` every 10 ms until it holds (10 s at most). */
async function waitUntil(condition: () => boolean): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  while (!condition() && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 10));
}
