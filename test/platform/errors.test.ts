/**
 * Every way a call can fail, each mapped to its error class with the platform's status,
 * code, field and request id, and none of them carrying the key, headers or axios' config.
 */
import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import {
  PlatformAuthError, PlatformBadResponseError, PlatformConflictError, PlatformError, PlatformNetworkError,
  PlatformNotFoundError, PlatformPermissionError, PlatformRateLimitError, PlatformServerError, PlatformTimeoutError,
  PlatformValidationError,
} from "../../src/platform/index.js";
import { listen, type Listening } from "../support/http.js";
import { TEST_KEY, WRONG_KEY } from "../support/keys.js";
import { clientFor, closedPort, emulatorWith, rejectionOf, type TestClient } from "./support.js";

const OTHER_ORG_KEY = `svc_test_${randomBytes(18).toString("base64url")}`;
const DATES = { startDate: "2026-09-01", endDate: "2026-12-01" };

/** Nothing of the request travels with the error: no cause, config, request or headers. */
function expectPlainError(error: Error & Record<string, unknown>): void {
  expect(error).toBeInstanceOf(PlatformError);
  expect(error.cause).toBeUndefined();
  for (const field of ["config", "request", "response", "headers"]) expect(error).not.toHaveProperty(field);
  const printed = `${inspect(error, { showHidden: true, depth: 8 })} ${JSON.stringify(error)}`;
  expect(printed).not.toMatch(/authorization|bearer/i);
  expect(printed).not.toContain(OTHER_ORG_KEY);
}

let emulator: Emulator;
let client: TestClient;
beforeAll(async () => {
  emulator = await emulatorWith({ otherOrgKeys: [OTHER_ORG_KEY], classCapacity: 1 });
  // Seconds per call: an answer on a busy machine is an answer, not a timeout. The timeout test has its own client.
  client = clientFor(emulator.url, { timeoutMs: 5_000, maxRetries: 0 });
});
afterAll(async () => {
  client.close();
  await emulator.close();
});
beforeEach(() => emulator.reset());

describe("platform answers map to their error classes", () => {
  it("400 becomes PlatformValidationError with the field the platform blamed and its request id", async () => {
    const error = await rejectionOf(client.request("POST", "/courses", { level: "graduate" }));
    expect(error).toBeInstanceOf(PlatformValidationError);
    expect(error).toMatchObject({ status: 400, code: "validation_error", field: "name", kind: "validation", attempts: 1 });
    expect(error.requestId).toMatch(/^req_/);
    expect(error.message).toContain("POST /courses → 400 validation_error");
    expectPlainError(error);
  });

  it("401 becomes PlatformAuthError for an unknown key, and neither error nor logs hold the key", async () => {
    const wrong = clientFor(emulator.url, { apiKey: WRONG_KEY });
    const error = await rejectionOf(wrong.courses.list());
    expect(error).toBeInstanceOf(PlatformAuthError);
    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
    expectPlainError(error);
    expect(JSON.stringify(wrong.logger.lines)).not.toContain(WRONG_KEY);
    wrong.close();
  });

  it("403 becomes PlatformPermissionError for another organization's course", async () => {
    const course = await client.courses.create({ name: "Ours" });
    const other = clientFor(emulator.url, { apiKey: OTHER_ORG_KEY });
    const error = await rejectionOf(other.courses.retrieve(course.data._id));
    expect(error).toBeInstanceOf(PlatformPermissionError);
    expect(error).toMatchObject({ status: 403, code: "forbidden" });
    expectPlainError(error);
    other.close();
  });

  it("404 becomes PlatformNotFoundError", async () => {
    const error = await rejectionOf(client.courses.retrieve("does-not-exist"));
    expect(error).toBeInstanceOf(PlatformNotFoundError);
    expect(error).toMatchObject({ status: 404, code: "not_found", method: "GET", path: "/courses/does-not-exist" });
    expectPlainError(error);
  });

  it("409 becomes PlatformConflictError when the class is full, naming classId", async () => {
    const course = await client.courses.create({ name: "Full" });
    const klass = await client.classes.create(course.data._id, { name: "Tiny", ...DATES });
    const student = (n: number) => ({
      email: `s${n}@example.edu`, firstName: "S", lastName: `${n}`, orgInternalId: `s${n}`, classId: klass.data._id,
    });
    await client.students.createSignInToken(student(1));
    const error = await rejectionOf(client.students.createSignInToken(student(2)));
    expect(error).toBeInstanceOf(PlatformConflictError);
    expect(error).toMatchObject({ status: 409, code: "conflict", field: "classId" });
    expectPlainError(error);
  });

  it("429 becomes PlatformRateLimitError carrying retryAfter in seconds", async () => {
    // Its own client: the 429 pauses the client's budget for 7 s.
    const limited = clientFor(emulator.url, { maxRetries: 0 });
    emulator.fault({ type: "status", status: 429, retryAfter: 7 });
    const error = await rejectionOf(limited.courses.list());
    expect(error).toBeInstanceOf(PlatformRateLimitError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 7 });
    expectPlainError(error);
    limited.close();
  });

  it("500 becomes PlatformServerError", async () => {
    emulator.fault({ type: "status", status: 500 });
    const error = await rejectionOf(client.courses.create({ name: "Boom" }));
    expect(error).toBeInstanceOf(PlatformServerError);
    expect(error).toMatchObject({ status: 500, kind: "server", attempts: 1 });
    expect((error as unknown as PlatformError).isTransient).toBe(true);
    expectPlainError(error);
  });

  it("no answer within timeoutMs becomes PlatformTimeoutError", async () => {
    emulator.fault({ type: "hang" });
    const quick = clientFor(emulator.url, { timeoutMs: 300, maxRetries: 0 });
    const started = Date.now();
    const error = await rejectionOf(quick.courses.list()).finally(() => quick.close());
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(error).toMatchObject({ kind: "timeout", status: undefined });
    expect(Date.now() - started).toBeLessThan(5_000); // wide (shared machine): the emulator would hang forever
    expectPlainError(error);
  });

  it("a closed port becomes PlatformNetworkError naming the system code", async () => {
    const port = await closedPort();
    const offline = clientFor(`http://127.0.0.1:${port}`, { maxRetries: 0 });
    const error = await rejectionOf(offline.courses.list());
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect(error.message).toContain("ECONNREFUSED");
    expectPlainError(error);
    offline.close();
  });

  it("a dropped connection becomes PlatformNetworkError", async () => {
    emulator.fault({ type: "reset" });
    const error = await rejectionOf(client.courses.create({ name: "Reset" }));
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expectPlainError(error);
  });

  it("malformed JSON in a 200 becomes PlatformBadResponseError and is not retried", async () => {
    const retrying = clientFor(emulator.url, { maxRetries: 2 });
    emulator.fault({ type: "malformed" });
    const error = await rejectionOf(retrying.courses.list());
    expect(error).toBeInstanceOf(PlatformBadResponseError);
    expect(error).toMatchObject({ status: 200, kind: "bad_response" });
    expect(emulator.requests).toHaveLength(1);
    expectPlainError(error);
    retrying.close();
  });
});

describe("answers from a platform that misbehaves (a local server)", () => {
  let server: Listening;
  let answer: (res: import("node:http").ServerResponse, auth: string) => void = () => {};
  beforeAll(async () => {
    server = await listen((req, res) => answer(res, req.headers.authorization ?? ""));
  });
  afterAll(() => server.close());

  it("scrubs the key from an upstream error message that echoes the Authorization header", async () => {
    answer = (res, auth) => {
      res.writeHead(400, { "Content-Type": "application/json", "X-Request-Id": "req_echo" });
      res.end(JSON.stringify({ error: { code: "validation_error", message: `bad header ${auth} (key ${auth.slice(7)})` } }));
    };
    const echo = clientFor(server.url);
    const error = await rejectionOf(echo.courses.list());
    expect(error).toBeInstanceOf(PlatformValidationError);
    expect(error.message).not.toContain(TEST_KEY);
    expect(error.message).toContain("Bearer [redacted]");
    expect(error.requestId).toBe("req_echo");
    echo.close();
  });

  it("scrubs the key from the code and the field of an upstream error too, not only from its message", async () => {
    answer = (res, auth) => {
      res.writeHead(409, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { code: `conflict ${auth.slice(7)}`, message: "taken", field: `classId ${auth}` } }));
    };
    const echo = clientFor(server.url);
    const error = await rejectionOf(echo.courses.list());
    expect(error.status).toBe(409);
    for (const text of [error.code, error.field, error.message, JSON.stringify(error)]) {
      expect(text).toBeDefined();
      expect(text).not.toContain(TEST_KEY);
    }
    expect(error.code).toMatch(/^conflict /);
    expect(error.field).toMatch(/^classId /);
    echo.close();
  });

  it("a success without the fields we rely on (_id) is PlatformBadResponseError naming the field, not its value", async () => {
    answer = (res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ data: { name: "no id", secret: "s3cr3t" } }));
    };
    const bad = clientFor(server.url);
    const error = await rejectionOf(bad.courses.retrieve("c1"));
    expect(error).toBeInstanceOf(PlatformBadResponseError);
    expect(error.message).toContain("_id");
    expect(error.message).not.toContain("s3cr3t");
    bad.close();
  });

  it("an HTML error page from a proxy still gives the status and a readable message", async () => {
    answer = (res) => {
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<html><body>Bad gateway</body></html>");
    };
    const proxied = clientFor(server.url, { maxRetries: 0 });
    const error = await rejectionOf(proxied.courses.list());
    expect(error).toBeInstanceOf(PlatformServerError);
    expect(error).toMatchObject({ status: 502, code: "server_error" });
    expect(error.message).toContain("GET /courses → 502");
    proxied.close();
  });

  it("a redirect is not followed (the key stays home) and becomes a PlatformError with the status", async () => {
    const hits: string[] = [];
    const elsewhere = await listen((req, res) => {
      hits.push(req.url ?? "");
      res.end("{}");
    });
    answer = (res) => {
      res.writeHead(302, { Location: `${elsewhere.url}/steal` });
      res.end();
    };
    const redirected = clientFor(server.url);
    const error = await rejectionOf(redirected.courses.list());
    expect(error).toMatchObject({ status: 302, kind: "http" });
    expect(hits).toEqual([]);
    redirected.close();
    await elsewhere.close();
  });
});
