import { startTestEmulator } from "../support/emulator.js";
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator } from "../../src/emulator/index.js";
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";
import { CLASS, COURSE, call, seed } from "./helpers.js";

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ rateLimits: { dev: 10_000, prod: 10_000 } });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe("courses", () => {
  it("POST /courses creates a course with a 24-hex _id, timestamps and the default level (201, envelope)", async () => {
    const res = await call(emu, "POST", "/courses", { name: "Chemistry" });
    expect(res.status).toBe(201);
    expect(res.body.meta.requestId).toMatch(/^req_/);
    expect(res.headers.get("x-request-id")).toBe(res.body.meta.requestId);
    expect(res.body.data).toMatchObject({ name: "Chemistry", level: "undergraduate" });
    expect(res.body.data._id).toMatch(/^[0-9a-f]{24}$/);
    expect(Date.parse(res.body.data.createdAt)).not.toBeNaN();
    expect(res.body.data.updatedAt).toBe(res.body.data.createdAt);
  });

  it("keeps unknown fields untouched and does not let a body set _id or createdAt", async () => {
    const res = await call(emu, "POST", "/courses", { ...COURSE, code: "BIO-101", tags: ["a", { b: 1 }], _id: "mine", createdAt: "x" });
    expect(res.body.data).toMatchObject({ code: "BIO-101", tags: ["a", { b: 1 }] });
    expect(res.body.data._id).not.toBe("mine");
    expect(res.body.data.createdAt).not.toBe("x");
    const got = await call(emu, "GET", `/courses/${res.body.data._id}`);
    expect(got.body.data.tags).toEqual(["a", { b: 1 }]);
  });

  it("GET /courses lists the organization's courses (200)", async () => {
    await call(emu, "POST", "/courses", { name: "A" });
    await call(emu, "POST", "/courses", { name: "B" });
    const res = await call(emu, "GET", "/courses");
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { name: string }) => c.name)).toEqual(["A", "B"]);
  });

  it("GET /courses/:id returns one course, 404 not_found for an unknown id", async () => {
    const { courseId } = await seed(emu);
    expect((await call(emu, "GET", `/courses/${courseId}`)).body.data._id).toBe(courseId);
    const missing = await call(emu, "GET", "/courses/000000000000000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    expect(missing.body.meta.requestId).toMatch(/^req_/);
  });

  it("PUT /courses/:id changes the given fields, keeps the rest and bumps updatedAt (200)", async () => {
    const created = (await call(emu, "POST", "/courses", { ...COURSE, extra: 1 })).body.data;
    await new Promise((r) => setTimeout(r, 5));
    const res = await call(emu, "PUT", `/courses/${created._id}`, { name: "Biology 102" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: created._id, name: "Biology 102", level: "undergraduate", extra: 1, createdAt: created.createdAt });
    expect(res.body.data.updatedAt > created.updatedAt).toBe(true);
  });

  it("PUT /courses/:id with nothing to change is 400 validation_error", async () => {
    const { courseId } = await seed(emu);
    const res = await call(emu, "PUT", `/courses/${courseId}`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
  });

  it("DELETE /courses/:id answers 204 with no body, and the course (with its classes and exams) is gone", async () => {
    const { courseId, examId } = await seed(emu);
    const res = await call(emu, "DELETE", `/courses/${courseId}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await call(emu, "GET", `/courses/${courseId}`)).status).toBe(404);
    expect((await call(emu, "GET", `/oral-assessments/${examId}`)).status).toBe(404);
    expect((await call(emu, "DELETE", `/courses/${courseId}`)).status).toBe(404);
  });
});

describe("classes and assessments", () => {
  it("POST /courses/:id/classes creates a class carrying courseId, with dates normalised to UTC ms (201)", async () => {
    const { courseId } = await seed(emu);
    const res = await call(emu, "POST", `/courses/${courseId}/classes`, { ...CLASS, startDate: "2026-09-01", room: "B12" });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ courseId, classMode: "online", startDate: "2026-09-01T00:00:00.000Z", room: "B12" });
    expect(res.body.data._id).toMatch(/^[0-9a-f]{24}$/);
    const list = await call(emu, "GET", `/courses/${courseId}/classes`);
    expect(list.body.data).toHaveLength(2);
  });

  it("POST /courses/:id/classes for an unknown course is 404", async () => {
    const res = await call(emu, "POST", "/courses/nope/classes", CLASS);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });

  it("POST /oral-assessments creates an assessment carrying classId and courseId, passing unknown fields (201)", async () => {
    const { courseId, classId } = await seed(emu);
    const res = await call(emu, "POST", "/oral-assessments", {
      name: "Oral", classId, questions: [{ text: "Why?" }], isOpenBook: true, language: "en",
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ classId, courseId, duration: 600, examType: "Generic", isOpenBook: true, language: "en" });
    expect(res.body.data.questions[0]).toMatchObject({ text: "Why?", id: expect.any(String) });
    const got = await call(emu, "GET", `/oral-assessments/${res.body.data._id}`);
    expect(got.body.data).toEqual(res.body.data);
  });

  it("POST /oral-assessments with an unknown classId is 404 naming the field", async () => {
    const res = await call(emu, "POST", "/oral-assessments", { name: "Oral", classId: "nope", questions: [{ text: "Q" }] });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "not_found", field: "classId" });
  });
});

describe("validation and routing", () => {
  it("rejects a bad body with 400 validation_error naming the first field (endDate before startDate)", async () => {
    const { courseId } = await seed(emu);
    const res = await call(emu, "POST", `/courses/${courseId}/classes`, { ...CLASS, endDate: "2026-01-01T00:00:00.000Z" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field: "endDate" });
    expect(res.body.error.message).toContain("endDate");
    expect(res.body.meta.requestId).toMatch(/^req_/);
  });

  it("rejects a missing required field with its name as field", async () => {
    const res = await call(emu, "POST", "/courses", { level: "graduate" });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("name");
  });

  it("rejects a body that is not JSON with 400 validation_error", async () => {
    const res = await call(emu, "POST", "/courses", undefined, { raw: "{not json" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
  });

  it("rejects a body over the size limit with 413", async () => {
    const small = await startTestEmulator({ maxBodyBytes: 1024 });
    try {
      const res = await call(small, "POST", "/courses", { name: "x".repeat(5000) });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe("payload_too_large");
    } finally {
      await small.close();
    }
  });

  it("answers 404 not_found for an unknown route and 405 for a known path with the wrong method", async () => {
    const unknown = await call(emu, "GET", "/nothing-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    const wrong = await call(emu, "PATCH", "/courses");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, GET");
    expect((await call(emu, "GET", "/courses//classes")).status).toBe(404);
  });

  it("percent-decodes path parameters exactly once", async () => {
    const res = await call(emu, "GET", "/courses/a%252Fb");
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('"a%2Fb"');
    expect(emu.requests.at(-1)?.path).toBe("/courses/a%252Fb");
  });

  it("answers 404 outside /api/v1/<dev|prod> and on any other path of the host", async () => {
    expect((await fetch(`${emu.url}/api/v2/dev/courses`)).status).toBe(404);
    expect((await fetch(`${emu.url}/api/v1/staging/courses`)).status).toBe(404);
    expect((await fetch(`${emu.url}/dashboard`)).status).toBe(404);
    expect((await fetch(`${emu.url}/admin/api-keys`)).status).toBe(404);
  });
});

describe("response shapes", () => {
  it("bare: answers raw records and lists, no envelope", async () => {
    const bare = await startTestEmulator({ responseShape: "bare" });
    try {
      const created = await call(bare, "POST", "/courses", COURSE);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ _id: expect.any(String), name: COURSE.name });
      expect(created.body.data).toBeUndefined();
      const list = await call(bare, "GET", "/courses");
      expect(Array.isArray(list.body)).toBe(true);
      const error = await call(bare, "GET", "/courses/nope");
      expect(error.body.error.code).toBe("not_found"); // errors keep the vendor's error body
    } finally {
      await bare.close();
    }
  });

  it("mixed: alternates envelope and bare between successful responses", async () => {
    const mixed = await startTestEmulator({ responseShape: "mixed" });
    try {
      const shapes: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await call(mixed, "POST", "/courses", COURSE);
        shapes.push("data" in res.body ? "envelope" : "bare");
      }
      expect(shapes).toEqual(["envelope", "bare", "envelope", "bare"]);
    } finally {
      await mixed.close();
    }
  });
});

describe("records and log", () => {
  it("logs API requests (method, path, env, status, body) but never the key", async () => {
    await call(emu, "POST", "/courses", COURSE);
    await call(emu, "GET", "/courses", undefined, { env: "prod" });
    const log = emu.requests;
    expect(log).toMatchObject([
      { method: "POST", path: "/courses", env: "dev", status: 201, body: COURSE },
      { method: "GET", path: "/courses", env: "prod", status: 200 },
    ]);
    expect(JSON.stringify(log)).not.toContain(TEST_KEY);
    expect(JSON.stringify(log)).not.toContain(LIVE_KEY);
  });

  it("keeps only the last requestLogLimit requests", async () => {
    const bounded = await startTestEmulator({ requestLogLimit: 3 });
    try {
      for (let i = 0; i < 10; i++) await call(bounded, "GET", `/courses/${i}`);
      expect(bounded.requests.map((r) => r.path)).toEqual(["/courses/7", "/courses/8", "/courses/9"]);
    } finally {
      await bounded.close();
    }
  });

  it("state() shows the records and reset() clears records and the log", async () => {
    await seed(emu);
    const state = emu.state();
    expect(state.courses).toHaveLength(1);
    expect(state.classes).toHaveLength(1);
    expect(state.assessments).toHaveLength(1);
    emu.reset();
    expect(emu.state()).toEqual({ courses: [], classes: [], assessments: [], roleplays: [], students: [], tickets: [] });
    expect(emu.requests).toHaveLength(0);
  });

  it("prints without its keys (inspect and JSON show them redacted)", () => {
    const printed = `${JSON.stringify(emu)} ${inspect(emu, { showHidden: true, depth: 8 })}`;
    expect(printed).toContain("svc_test_…");
    expect(printed).not.toContain(TEST_KEY);
    expect(printed).not.toContain(LIVE_KEY);
    expect(emu.testKey).toBe(TEST_KEY);
  });
});
