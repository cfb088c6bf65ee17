import { startTestEmulator } from "../support/emulator.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator } from "../../src/emulator/index.js";
import { TEST_KEY } from "../support/keys.js";
import { COURSE, call } from "./helpers.js";

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ rateLimits: { dev: 1000 } });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const rawFetch = (path: string, init: RequestInit = {}) =>
  fetch(`${emu.url}/api/v1/dev${path}`, { ...init, headers: { Authorization: `Bearer ${TEST_KEY}`, ...init.headers } });

describe("status faults", () => {
  it("answers the injected status with the vendor's error body, then recovers after count requests", async () => {
    emu.fault({ type: "status", status: 503, count: 2 });
    const first = await call(emu, "GET", "/courses");
    const second = await call(emu, "GET", "/courses");
    expect([first.status, second.status]).toEqual([503, 503]);
    expect(first.body.error.code).toBe("service_unavailable");
    expect(first.body.meta.requestId).toMatch(/^req_/);
    expect(first.headers.get("x-ratelimit-limit")).toBe("1000");
    expect((await call(emu, "GET", "/courses")).status).toBe(200);
  });

  it("sends Retry-After with an injected 429", async () => {
    emu.fault({ type: "status", status: 429, retryAfter: 7 });
    const res = await call(emu, "GET", "/courses");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.body.error.code).toBe("rate_limited");
  });

  it("applies only to matching method and path prefix", async () => {
    emu.fault({ type: "status", status: 500, method: "POST", pathPrefix: "/courses" });
    expect((await call(emu, "GET", "/courses")).status).toBe(200);
    expect((await call(emu, "POST", "/students/sign-in-token", {})).status).toBe(400);
    expect((await call(emu, "POST", "/courses", COURSE)).status).toBe(500);
    expect((await call(emu, "POST", "/courses", COURSE)).status).toBe(201);
  });

  it("applies only to requests whose body contains bodyContains (one student's sign-ins)", async () => {
    emu.fault({ type: "status", status: 500, count: 10, pathPrefix: "/courses", bodyContains: "Faulty" });
    expect((await call(emu, "POST", "/courses", { ...COURSE, name: "Fine 101" })).status).toBe(201);
    expect((await call(emu, "POST", "/courses", { ...COURSE, name: "Faulty 101" })).status).toBe(500);
    expect((await call(emu, "GET", "/courses")).status).toBe(200); // no body: no match
    expect(() => emu.fault({ type: "status", status: 500, bodyContains: "" })).toThrow(/bodyContains/);
  });

  it("logs faulted requests in requests with their status", async () => {
    emu.fault({ type: "status", status: 502 });
    await call(emu, "POST", "/courses", COURSE);
    expect(emu.requests.at(-1)).toMatchObject({ method: "POST", path: "/courses", status: 502, body: COURSE });
  });

  it("clearFaults() removes pending faults", async () => {
    emu.fault({ type: "status", status: 500, count: 5 });
    emu.clearFaults();
    expect((await call(emu, "GET", "/courses")).status).toBe(200);
  });

  it("refuses an invalid fault spec", () => {
    expect(() => emu.fault({ type: "status" })).toThrow(/status/);
    expect(() => emu.fault({ type: "explode" } as never)).toThrow(/type/);
  });
});

describe("connection faults", () => {
  it("hang: never answers; the client's timeout fires and the request is logged with status 0", async () => {
    emu.fault({ type: "hang" });
    const started = Date.now();
    await expect(rawFetch("/courses", { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(emu.requests.at(-1)).toMatchObject({ path: "/courses", status: 0 });
    expect((await call(emu, "GET", "/courses")).status).toBe(200);
  });

  it("close() ends hung sockets, so a hung request fails instead of holding the test open", async () => {
    const own = await startTestEmulator();
    own.fault({ type: "hang" });
    const pending = fetch(`${own.url}/api/v1/dev/courses`, { headers: { Authorization: `Bearer ${TEST_KEY}` } });
    // Until the request is in (and hangs): a request refused at the door would prove nothing.
    const giveUpAt = Date.now() + 10_000;
    while (own.requests.length === 0 && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 10));
    expect(own.requests).toHaveLength(1);
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(5_000); // wide (shared machine): waiting for the hung socket would be forever
    await expect(pending).rejects.toThrow();
  });

  it("reset: destroys the socket, so the client sees a network error", async () => {
    emu.fault({ type: "reset" });
    await expect(rawFetch("/courses")).rejects.toThrow(/fetch failed/);
    expect(emu.requests.at(-1)).toMatchObject({ path: "/courses", status: 0 });
    expect((await call(emu, "GET", "/courses")).status).toBe(200);
  });

  it("malformed: answers 200 application/json with a body that is not JSON", async () => {
    emu.fault({ type: "malformed" });
    const res = await rawFetch("/courses");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    await expect(res.json()).rejects.toThrow(SyntaxError);
  });
});

describe("latency", () => {
  it("adds fixed latency to every API request", async () => {
    emu.setLatency({ fixedMs: 200 });
    const started = Date.now();
    expect((await call(emu, "GET", "/courses")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("adds jitter within [fixed, fixed + jitter) and clearFaults() removes it", async () => {
    // Wide bounds (a shared 2-core machine): what matters is "delayed" vs "not delayed", so the
    // delay is over a second longer than an undelayed call may take here.
    emu.setLatency({ fixedMs: 2_000, jitterMs: 100 });
    const started = Date.now();
    await call(emu, "GET", "/courses");
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(1_995);
    expect(took).toBeLessThan(2_000 + 100 + 1_500);
    emu.clearFaults();
    const quick = Date.now();
    await call(emu, "GET", "/courses");
    expect(Date.now() - quick).toBeLessThan(1_000);
  });

  it("does not delay exam pages or control endpoints", async () => {
    emu.setLatency({ fixedMs: 3000 });
    const started = Date.now();
    await fetch(`${emu.url}/__emulator/state`);
    await fetch(`${emu.url}/exam/nope`);
    expect(Date.now() - started).toBeLessThan(1500); // one delayed request alone would take 3 s
  });
});
