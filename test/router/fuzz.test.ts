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

  // Known router finding (fixed with the router hardening step): malformed percent-encoding
  // in a path segment (`GET /launch/%C0%AE`, `GET /oral-assessments/%FF/prepare`,
  // `GET /courses/%FF`) reaches Express's decodeURIComponent and answers 500.
  it.fails("answers malformed percent-encoding in an id with a 4xx, not 500 (router finding: malformed percent-encoding)", async () => {
    await fc.assert(property(malformedPathRequest()), { numRuns: 50 });
  });
});
