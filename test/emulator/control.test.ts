import { startTestEmulator } from "../support/emulator.js";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator } from "../../src/emulator/index.js";
import { assertNoKey } from "../support/canary.js";
import { COURSE, call, seed } from "./helpers.js";

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${emu.url}/__emulator${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assertNoKey(text, `the control answer of ${method} ${path}`);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

describe("HTTP control endpoints", () => {
  it("GET /__emulator lists the endpoints", async () => {
    const res = await control("GET", "");
    expect(res.status).toBe(200);
    expect(res.body.endpoints).toContain("POST /__emulator/faults");
  });

  it("GET /__emulator/state shows records and POST /__emulator/reset clears them", async () => {
    await seed(emu);
    const state = await control("GET", "/state");
    expect(state.body.courses).toHaveLength(1);
    expect(state.body.assessments).toHaveLength(1);
    expect((await control("POST", "/reset")).status).toBe(200);
    expect((await control("GET", "/state")).body.courses).toHaveLength(0);
  });

  it("POST /__emulator/faults injects a fault and DELETE /__emulator/faults removes it", async () => {
    expect((await control("POST", "/faults", { type: "status", status: 500, count: 3 })).status).toBe(201);
    expect((await call(emu, "GET", "/courses")).status).toBe(500);
    expect((await control("DELETE", "/faults")).status).toBe(200);
    expect((await call(emu, "GET", "/courses")).status).toBe(200);
  });

  it("POST /__emulator/faults with an invalid spec is 400", async () => {
    const res = await control("POST", "/faults", { type: "status", status: "soon" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
  });

  it("POST /__emulator/latency slows API requests", async () => {
    expect((await control("POST", "/latency", { fixedMs: 150 })).body.latency).toEqual({ fixedMs: 150, jitterMs: 0 });
    const started = Date.now();
    await call(emu, "GET", "/courses");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await control("POST", "/latency", { fixedMs: -1 })).status).toBe(400);
  });

  it("POST /__emulator/rate-limits changes limits", async () => {
    expect((await control("POST", "/rate-limits", { dev: 2 })).body.rateLimits).toMatchObject({ dev: 2, prod: 600 });
    expect((await call(emu, "GET", "/courses")).headers.get("x-ratelimit-limit")).toBe("2");
    expect((await control("POST", "/rate-limits", { dev: "many" })).status).toBe(400);
  });

  it("GET /__emulator/requests returns the log without keys, ?limit=N the last N", async () => {
    await call(emu, "POST", "/courses", COURSE);
    await call(emu, "GET", "/courses");
    const all = await control("GET", "/requests");
    expect(all.body.map((r: { method: string }) => r.method)).toEqual(["POST", "GET"]);
    const last = await control("GET", "/requests?limit=1");
    expect(last.body).toMatchObject([{ method: "GET", path: "/courses", env: "dev", status: 200 }]);
  });

  it("answers 404 for unknown control paths and 405 for a wrong method", async () => {
    expect((await control("GET", "/nope")).status).toBe(404);
    expect((await control("GET", "/reset")).status).toBe(405);
  });

  // Needs a non-loopback interface to connect from; containers without one skip it.
  const lan = Object.values(networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal)?.address;
  it.skipIf(!lan)("refuses clients from a non-loopback address with 403, unless controlFromAnyAddress", async () => {
    for (const controlFromAnyAddress of [false, true]) {
      const open = await startTestEmulator({ host: "0.0.0.0", controlFromAnyAddress });
      try {
        const port = new URL(open.url).port;
        const res = await fetch(`http://${lan}:${port}/__emulator/state`);
        expect(res.status).toBe(controlFromAnyAddress ? 200 : 403);
        expect((await fetch(`${open.url}/__emulator/state`)).status).toBe(200); // loopback always
      } finally {
        await open.close();
      }
    }
  });
});
