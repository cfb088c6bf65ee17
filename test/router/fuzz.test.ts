/**
 * Property-based fuzzing of every instructor route with invalid ids, bodies and headers
 * (the generators live in bench/soak/fuzz-cases.js; `npm run soak` runs 10 000+ of them
 * against the built package). Each invalid request must get a 4xx problem+json (a 400
 * naming a field) and send nothing to the platform.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invalidRequest, malformedPathRequest, wrongAnswer } from "../../bench/soak/fuzz-cases.js";
import { rawRequest } from "../../bench/soak/http.js";
import { startStack, type Stack } from "../support/stack.js";

interface Case { method: string; path: string; headers: Record<string, string>; body?: string }

let stack: Stack;
let ids: { courseId: string; classId: string; examId: string };
let cookie: string;
beforeAll(async () => {
  stack = await startStack();
  ids = await stack.seedExam();
  const login = await fetch(`${stack.app.url}/login`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "ines", password: "pw-ines" }),
  });
  cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
});
afterAll(async () => { await stack.close(); });

async function send(c: Case): Promise<{ wrong: string | undefined; upstream: number }> {
  const sent = stack.track();
  const res = await rawRequest(`${stack.app.url}/oral`, { ...c, headers: { ...c.headers, cookie } });
  return { wrong: wrongAnswer(res.status, res.headers["content-type"], res.text), upstream: sent().length };
}

const property = (arbitrary: fc.Arbitrary<Case>) => fc.asyncProperty(arbitrary, async (c) => {
  const { wrong, upstream } = await send(c);
  expect(wrong, `${c.method} ${c.path} ${c.body ?? ""}`.slice(0, 300)).toBeUndefined();
  expect(upstream, "platform calls for invalid input").toBe(0);
});

describe("fuzzing the instructor API with invalid input", () => {
  it("logs in (the set-up the properties rely on)", async () => {
    expect(cookie).toMatch(/=/);
    const res = await fetch(`${stack.app.url}/oral/courses`, { headers: { cookie } });
    expect(res.status).toBe(200);
  });

  it("answers every invalid id, body and header with a 4xx problem naming the field, and calls no platform", async () => {
    await fc.assert(property(invalidRequest(ids)), { numRuns: 300 });
  });

  // Malformed percent-encoding in a path segment (`GET /launch/%C0%AE`, `GET /courses/%`)
  // fails Express's decodeURIComponent before any handler runs: still the client's
  // mistake, a 400 naming the parameter (an HTML page on the browser's launch route).
  it("answers malformed percent-encoding in an id with a 400 naming the parameter, not 500, and logs no error", async () => {
    const errorsBefore = stack.logger.lines.filter((e) => e.level === "error").length;
    await fc.assert(fc.asyncProperty(malformedPathRequest(), async (c: Case) => {
      const sent = stack.track();
      const res = await rawRequest(`${stack.app.url}/oral`, { ...c, headers: { ...c.headers, cookie } });
      if (c.path.startsWith("/launch/")) {
        expect(res.status, c.path).toBe(400);
        expect(res.headers["content-type"]).toMatch(/^text\/html/);
      } else {
        expect(wrongAnswer(res.status, res.headers["content-type"], res.text), c.path).toBeUndefined();
        expect(res.status, c.path).toBe(400);
        const named = (JSON.parse(res.text) as { errors: { path: string }[] }).errors.map((e) => e.path);
        expect(named, c.path).toEqual([c.path.startsWith("/classes/") ? "classId" : c.path.startsWith("/courses/") ? "courseId" : "examId"]);
      }
      expect(sent().length, "platform calls for invalid input").toBe(0);
    }), { numRuns: 50 });
    expect(stack.logger.lines.filter((e) => e.level === "error").length - errorsBefore, "error-level log lines").toBe(0);
  });

  it("answers each reported malformed path without a login with a 4xx (the sign-in check first on the instructor API), never 500", async () => {
    const errorsBefore = stack.logger.lines.filter((e) => e.level === "error").length;
    for (const path of ["/launch/%C0%AE", "/oral-assessments/%FF/prepare", "/courses/%", "/courses/%/classes", "/classes/%/oral-assessments", "/launch/%"]) {
      const res = await rawRequest(`${stack.app.url}/oral`, { method: "GET", path, headers: {} });
      if (path.startsWith("/launch/")) expect(res.status, path).toBe(400);
      else expect([400, 401], path).toContain(res.status);
    }
    expect(stack.logger.lines.filter((e) => e.level === "error").length - errorsBefore, "error-level log lines").toBe(0);
  });
});
