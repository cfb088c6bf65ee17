/**
 * What the client refuses or neutralises before anything is sent: ids that would address
 * another endpoint, raw paths for `request()`, and bodies the platform would reject
 * (bad dates, end before start, missing fields). "Nothing sent" is checked at the
 * emulator: its request log stays empty.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { PlatformInvalidRequestError, PlatformNotFoundError, pathOf } from "../../src/platform/index.js";
import { clientFor, emulatorWith, rejectionOf, type TestClient } from "./support.js";

let emulator: Emulator;
let client: TestClient;
let courseId: string;
beforeAll(async () => {
  emulator = await emulatorWith();
  client = clientFor(emulator.url);
});
afterAll(async () => {
  client.close();
  await emulator.close();
});
beforeEach(async () => {
  emulator.reset();
  courseId = (await client.courses.create({ name: "Target" })).data._id;
});

/** What reached the emulator after the set-up POST. */
const sentAfterSetup = () => emulator.requests.slice(1);

describe("ids in paths", () => {
  const hostile = ["../x", "../courses", "a/b", "a?b", "a#b", "%2F", "..%2F..%2Fcourses", "a b", "é/ü", `${"x".repeat(10)}/..`];

  it.each(hostile)("encodes %j as one path segment, which reaches no other endpoint", async (id) => {
    const error = await rejectionOf(client.courses.retrieve(id));
    expect(error).toBeInstanceOf(PlatformNotFoundError);
    const [request] = sentAfterSetup();
    expect(request).toMatchObject({ method: "GET", path: `/courses/${encodeURIComponent(id)}`, status: 404 });
    expect(sentAfterSetup()).toHaveLength(1);
  });

  it("keeps a hostile course id inside its segment for nested paths too", async () => {
    const error = await rejectionOf(client.classes.create("../oral-assessments", { name: "C", startDate: "2026-01-01", endDate: "2026-02-01" }));
    expect(error).toBeInstanceOf(PlatformNotFoundError);
    expect(sentAfterSetup()[0]?.path).toBe("/courses/..%2Foral-assessments/classes");
    expect(emulator.state().classes).toHaveLength(0);
  });

  const refused: [string, unknown][] = [
    ["empty", ""], ["a dot segment", "."], ["a dot-dot segment", ".."], ["a newline", "a\nb"],
    ["a NUL byte", "a\u0000b"], ["DEL", "a\u007fb"], ["over 200 characters", "x".repeat(201)], ["not a string", 42],
  ];
  it.each(refused)("refuses an id that is %s with PlatformInvalidRequestError, sending nothing", async (_what, id) => {
    const attempts = [
      client.courses.retrieve(id as string),
      client.courses.update(id as string, { name: "n" }),
      client.courses.del(id as string),
      client.classes.create(id as string, { name: "C", startDate: "2026-01-01", endDate: "2026-02-01" }),
    ];
    for (const attempt of attempts) {
      const error = await rejectionOf(attempt);
      expect(error).toBeInstanceOf(PlatformInvalidRequestError);
      expect(error.field).toBe("courseId");
    }
    expect(sentAfterSetup()).toHaveLength(0);
  });

  it("pathOf encodes every interpolated id and refuses bad ones", () => {
    expect(pathOf`/courses/${"a/b"}/classes`).toBe("/courses/a%2Fb/classes");
    expect(pathOf`/x/${"a?b#c"}/${"%2e%2e"}`).toBe("/x/a%3Fb%23c/%252e%252e");
    expect(() => pathOf`/courses/${".."}`).toThrow(PlatformInvalidRequestError);
    expect(() => pathOf`/courses/${""}`).toThrow(/must not be empty/);
  });
});

describe("request() paths", () => {
  const bad = [
    "courses", "//evil.example/x", "/courses/../students/sign-in-token", "/courses/%2e%2e/x", "/courses/%2E./x",
    "/courses/./x", "/courses#frag", "/courses\\..\\x", "/courses/a b", "/courses/\r\nX-Injected: 1", "",
  ];
  it.each(bad)("refuses %j before sending", async (path) => {
    const error = await rejectionOf(client.request("GET", path));
    expect(error).toBeInstanceOf(PlatformInvalidRequestError);
    expect(sentAfterSetup()).toHaveLength(0);
  });

  it("allows a query string and keeps it out of errors and logs", async () => {
    const error = await rejectionOf(client.request("GET", "/nothing-here?email=ada%40example.edu"));
    expect(error).toBeInstanceOf(PlatformNotFoundError);
    expect(error.path).toBe("/nothing-here");
    // Not just "ada": hex request ids (req_…adaf…) contain it by chance.
    expect(error.message).not.toMatch(/ada%40|example\.edu|email=/);
    expect(JSON.stringify(client.logger.lines)).not.toMatch(/ada%40|example\.edu|email=/);
  });
});

describe("bodies", () => {
  const DATES = { startDate: "2026-09-01T09:00:00Z", endDate: "2026-12-01T17:00:00Z" };

  it.each([
    ["an impossible date", { startDate: "2026-13-45", endDate: DATES.endDate }, ["startDate"]],
    ["a date that is not ISO 8601", { startDate: "next Monday", endDate: DATES.endDate }, ["startDate"]],
    // Found by the soak's fuzz: `new Date` rolls these over (to 2 March, 1 March) instead of refusing them.
    ["a day the month does not have", { startDate: "2026-02-30T00:00:00Z", endDate: DATES.endDate }, ["startDate"]],
    ["29 February of a common year", { startDate: "2025-02-29", endDate: DATES.endDate }, ["startDate"]],
    ["a date-time without a zone", { startDate: "2026-09-01T09:00:00", endDate: DATES.endDate }, ["startDate"]],
    ["two bad dates", { startDate: "yesterday", endDate: "2026-02-30T25:00:00Z" }, ["startDate", "endDate"]],
    ["an end before the start", { startDate: DATES.endDate, endDate: DATES.startDate }, ["endDate"]],
  ])("refuses a class with %s, naming each field, with nothing sent", async (_what, dates, fields) => {
    const error = await rejectionOf(client.classes.create(courseId, { name: "Bad", ...dates }));
    expect(error).toBeInstanceOf(PlatformInvalidRequestError);
    const issues = (error as unknown as PlatformInvalidRequestError).issues;
    expect(issues.map((i) => i.path)).toEqual(fields);
    expect(error.message).toContain("Nothing was sent");
    expect(sentAfterSetup()).toHaveLength(0);
  });

  it("lists every problem at once: a bad id and a bad body together", async () => {
    const error = await rejectionOf(client.courses.update("..", { name: "   " }));
    const issues = (error as unknown as PlatformInvalidRequestError).issues;
    expect(issues.map((i) => i.path)).toEqual(["courseId", "name"]);
    expect(sentAfterSetup()).toHaveLength(0);
  });

  it("refuses a course without a name, an empty update, an empty question list and a bad e-mail", async () => {
    const attempts = [
      client.courses.create({} as { name: string }),
      client.courses.update(courseId, {}),
      // Omitted questions are the platform's to fill (a fallback question); an empty list is a mistake.
      client.oralAssessments.create({ name: "No questions", classId: "c1", questions: [] }),
      client.oralAssessments.create({ name: "Bad", classId: "c1", duration: 12.5, examType: "Oral" as "Generic", questions: [{ text: "q" }] }),
      client.students.createSignInToken({ email: "not-an-email", firstName: "A", lastName: "B", orgInternalId: "1", classId: "c1" }),
    ];
    const fields: string[][] = [];
    for (const attempt of attempts) {
      const error = await rejectionOf(attempt);
      expect(error).toBeInstanceOf(PlatformInvalidRequestError);
      fields.push((error as unknown as PlatformInvalidRequestError).issues.map((i) => i.path));
    }
    expect(fields).toEqual([["name"], ["(body)"], ["questions"], ["duration", "examType"], ["email"]]);
    expect(sentAfterSetup()).toHaveLength(0);
  });

  it("rejects with a promise, never a synchronous throw, so .catch() sees local refusals", async () => {
    let thrown = false;
    let promise: Promise<unknown> | undefined;
    try {
      promise = client.courses.retrieve("");
    } catch {
      thrown = true;
    }
    expect(thrown).toBe(false);
    await expect(promise).rejects.toBeInstanceOf(PlatformInvalidRequestError);
  });
});
