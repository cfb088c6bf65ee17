/** Every platform failure kind, as the instructor API and the launch route report it. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { metaRefresh } from "../support/html-page.js";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
let exam: { courseId: string; classId: string; examId: string };
beforeAll(async () => {
  // One retry, 1.5 s per attempt: an answer on a busy machine is not taken for a hang, and failures end well inside a test's time.
  stack = await startStack({ client: { timeoutMs: 1_500, maxRetries: 1, maxRetryAfterMs: 2_000 } });
  exam = await stack.seedExam();
});
afterAll(async () => { await stack.close(); });
afterEach(() => { stack.emulator.clearFaults(); });

describe("instructor API under platform failures", () => {
  it.each([
    ["a 500", 502, { type: "status", status: 500, count: 5 }, "upstream_error"],
    ["a hang", 504, { type: "hang", count: 5 }, "upstream_timeout"],
    ["a socket reset", 502, { type: "reset", count: 5 }, "upstream_error"],
    ["malformed JSON", 502, { type: "malformed", count: 5 }, "upstream_error"],
  ] as const)("maps %s to %i problem+json", async (_name, status, fault, code) => {
    const ines = await stack.login("ines");
    stack.emulator.fault({ ...fault });
    const started = Date.now();
    const res = await ines.get(`/oral/courses/${exam.courseId}`).expect(status);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status, code, detail: expect.any(String) });
    expect(Date.now() - started).toBeLessThan(10_000); // two 1.5 s attempts at most, widely
  });

  it("maps a 429 storm that outlasts the retries to 503 with Retry-After", async () => {
    const ines = await stack.login("ines");
    stack.emulator.fault({ type: "status", status: 429, retryAfter: 1, count: 10 });
    const res = await ines.get(`/oral/courses/${exam.courseId}`).expect(503);
    expect(res.body.code).toBe("upstream_rate_limited");
    expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("does not retry a POST that got a 500 (it may have been applied)", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    stack.emulator.fault({ type: "status", status: 500, count: 5 });
    await ines.post("/oral/courses").send({ name: "Once" }).expect(502);
    expect(sent().filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("reports a refused server key as 502, never as the user's 401", async () => {
    const { WRONG_KEY } = await import("../support/keys.js");
    const badKey = await startStack({ useEmulator: stack.emulator, client: { apiKey: WRONG_KEY } });
    try {
      const ines = await badKey.login("ines");
      const res = await ines.get("/oral/courses").expect(502);
      expect(res.body.code).toBe("upstream_unauthorized");
      expect(JSON.stringify(res.body)).not.toContain(WRONG_KEY);
    } finally { await badKey.close(); }
  });
});

describe("launch under platform failures", () => {
  it.each([
    ["a 500", 502, { type: "status", status: 500, count: 5 }, "s10"],
    ["a hang", 504, { type: "hang", count: 5 }, "s11"],
    ["a socket reset", 502, { type: "reset", count: 5 }, "s12"],
    ["malformed JSON", 502, { type: "malformed", count: 5 }, "s13"],
  ] as const)("answers %s with a friendly %i page and a retry hint", async (_name, status, fault, student) => {
    // A student of their own each: a failed call starts that student's backoff.
    const ada = await stack.login(student);
    stack.emulator.fault({ ...fault });
    const res = await ada.get(`/oral/launch/${exam.examId}`).expect(status);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toMatch(/try again/i);
    expect(res.headers.location).toBeUndefined();
  });

  it("turns a 429 storm it can wait out into the waiting page, then the exam: a busy platform fails no student", async () => {
    const ada = await stack.login("s14");
    const sent = stack.track();
    stack.emulator.fault({ type: "status", status: 429, retryAfter: 1, count: 3 });
    const first = await ada.get(`/oral/launch/${exam.examId}`).expect(202);
    expect(first.text).toMatch(/wait/i);
    // The page refreshes itself to ?wait=<id>; the student follows it until the exam.
    let refresh = metaRefresh(first.text)?.url;
    let status = 202;
    for (let i = 0; i < 30 && status === 202 && refresh; i++) {
      const next = await ada.get(new URL(refresh, "http://x").pathname + new URL(refresh, "http://x").search);
      status = next.status;
      refresh = metaRefresh(next.text)?.url ?? refresh;
    }
    expect(status).toBe(303);
    expect(sent().filter((r) => r.path === "/students/sign-in-token" && r.status === 429).length).toBeGreaterThanOrEqual(1);
  });

  it("answers 409 when the class is full", async () => {
    const full = await startStack({ emulator: { classCapacity: 1 } });
    try {
      const ids = await full.seedExam();
      await (await full.login("ada")).get(`/oral/launch/${ids.examId}`).expect(303);
      const res = await (await full.login("bob")).get(`/oral/launch/${ids.examId}`).expect(409);
      expect(res.text).toMatch(/full/i);
    } finally { await full.close(); }
  });
});
