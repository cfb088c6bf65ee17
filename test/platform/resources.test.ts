/**
 * Every client method against the emulator over real HTTP: what is sent (defaults filled,
 * dates normalised, unknown fields kept) and what comes back (records, meta, request ids),
 * for enveloped, bare and mixed response shapes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { PlatformInvalidRequestError, PlatformNotFoundError, pathOf } from "../../src/platform/index.js";
import { captured } from "../support/canary.js";
import { clientFor, emulatorWith, rejectionOf, type TestClient } from "./support.js";

const CLASS_DATES = { startDate: "2026-09-01", endDate: "2026-12-20T17:30:00+01:00" };

describe("with the vendor's envelope", () => {
  let emulator: Emulator;
  let client: TestClient;
  beforeAll(async () => {
    emulator = await emulatorWith();
    client = clientFor(emulator.url);
  });
  afterAll(async () => {
    client.close();
    await emulator.close();
  });
  beforeEach(() => emulator.reset());

  it("courses.create fills level with undergraduate and returns the course with _id and requestId", async () => {
    const { data, meta } = await client.courses.create({ name: "Biology 101" });
    expect(data._id).toEqual(expect.any(String));
    expect(data).toMatchObject({ name: "Biology 101", level: "undergraduate" });
    expect(meta?.requestId).toMatch(/^req_/);
    expect(emulator.requests).toHaveLength(1);
    expect(emulator.requests[0]).toMatchObject({ method: "POST", path: "/courses", env: "dev", status: 201 });
    expect(emulator.requests[0]?.body).toEqual({ name: "Biology 101", level: "undergraduate" });
  });

  it("courses.list returns the organization's courses as an array", async () => {
    await client.courses.create({ name: "A" });
    await client.courses.create({ name: "B", level: "graduate" });
    const { data } = await client.courses.list();
    expect(data.map((c) => c.name).sort()).toEqual(["A", "B"]);
    expect(emulator.requests.at(-1)).toMatchObject({ method: "GET", path: "/courses", status: 200 });
  });

  it("courses.retrieve returns one course by id", async () => {
    const created = await client.courses.create({ name: "Chemistry" });
    const { data } = await client.courses.retrieve(created.data._id);
    expect(data).toMatchObject({ _id: created.data._id, name: "Chemistry" });
  });

  it("courses.update sends only the changed fields and returns the updated course", async () => {
    const created = await client.courses.create({ name: "Old name" });
    const { data } = await client.courses.update(created.data._id, { name: "New name" });
    expect(data).toMatchObject({ _id: created.data._id, name: "New name", level: "undergraduate" });
    expect(emulator.requests.at(-1)).toMatchObject({ method: "PUT", body: { name: "New name" } });
  });

  it("courses.del resolves on 204 with no data, and the course is gone", async () => {
    const created = await client.courses.create({ name: "Doomed" });
    const result = await client.courses.del(created.data._id);
    expect(result.data).toBeUndefined();
    expect(emulator.requests.at(-1)).toMatchObject({ method: "DELETE", status: 204 });
    const error = await rejectionOf(client.courses.retrieve(created.data._id));
    expect(error).toBeInstanceOf(PlatformNotFoundError);
  });

  it("classes.create sends no classMode of its own and sends dates as ISO 8601 UTC with milliseconds", async () => {
    const course = await client.courses.create({ name: "Physics" });
    const { data } = await client.classes.create(course.data._id, { name: "Fall", ...CLASS_DATES });
    expect(data._id).toEqual(expect.any(String));
    // No classMode: the platform applies its own default (the emulator: the reference's in-person).
    expect(emulator.requests.at(-1)?.body).toEqual({
      name: "Fall", startDate: "2026-09-01T00:00:00.000Z", endDate: "2026-12-20T16:30:00.000Z",
    });
    expect(data.classMode).toBe("in-person");
    expect(emulator.requests.at(-1)?.path).toBe(`/courses/${course.data._id}/classes`);
  });

  it("oralAssessments.create fills duration 600, examType Generic and question ids", async () => {
    const course = await client.courses.create({ name: "History" });
    const klass = await client.classes.create(course.data._id, { name: "Spring", ...CLASS_DATES });
    const { data } = await client.oralAssessments.create({
      name: "Midterm", classId: klass.data._id, questions: [{ text: "Why 1648?" }, { id: "q2", text: "Name a treaty." }],
    });
    const sent = emulator.requests.at(-1)?.body as Record<string, unknown> & { questions: { id: string }[] };
    expect(sent).toMatchObject({ name: "Midterm", classId: klass.data._id, duration: 600, examType: "Generic" });
    expect(sent.questions[0]?.id).toMatch(/^q_/);
    expect(sent.questions[1]?.id).toBe("q2");
    expect(data._id).toEqual(expect.any(String));
  });

  it("unknown fields pass through untouched, in the request and in the returned record", async () => {
    const course = await client.courses.create({ name: "Art", department: "Humanities" });
    expect(emulator.requests.at(-1)?.body).toMatchObject({ department: "Humanities" });
    const klass = await client.classes.create(course.data._id, { name: "A", ...CLASS_DATES });
    const extra = { examDescription: "Oral midterm", isDraft: true, isOpenBook: false, language: "fr" } as const;
    const { data } = await client.oralAssessments.create({
      name: "Oral", classId: klass.data._id, questions: [{ text: "Q?", hint: "think" }], ...extra,
    });
    expect(emulator.requests.at(-1)?.body).toMatchObject({ ...extra, questions: [{ text: "Q?", hint: "think" }] });
    expect(data).toMatchObject(extra);
  });

  it("students.createSignInToken returns a token that appears in no log line", async () => {
    const course = await client.courses.create({ name: "Law" });
    const klass = await client.classes.create(course.data._id, { name: "L1", ...CLASS_DATES });
    const { data } = await client.students.createSignInToken({
      email: "ada@example.edu", firstName: "Ada", lastName: "Lovelace", orgInternalId: "u-1", classId: klass.data._id,
    });
    expect(data.token).toMatch(/^signin_/);
    expect(data.created).toBe(true);
    expect(captured.some((line) => line.includes(data.token))).toBe(false);
    expect(JSON.stringify(client.logger.lines)).not.toContain(data.token);
  });

  it("request() reaches an endpoint the client does not model, through the same machinery", async () => {
    const course = await client.courses.create({ name: "Music" });
    const klass = await client.classes.create(course.data._id, { name: "M", ...CLASS_DATES });
    const exam = await client.oralAssessments.create({ name: "E", classId: klass.data._id, questions: [{ text: "Q" }] });
    const { data, meta } = await client.request<{ _id: string; name: string }>("GET", pathOf`/oral-assessments/${exam.data._id}`);
    expect(data).toMatchObject({ _id: exam.data._id, name: "E" });
    expect(meta?.requestId).toMatch(/^req_/);
    const classes = await client.request<unknown[]>("get" as "GET", pathOf`/courses/${course.data._id}/classes`);
    expect(classes.data).toHaveLength(1);
  });

  it("request() with a body sends it as JSON, and DELETE resolves with undefined data on 204", async () => {
    const created = await client.request<{ _id: string }>("POST", "/courses", { name: "Raw" });
    expect(emulator.requests.at(-1)?.body).toEqual({ name: "Raw" });
    const deleted = await client.request("DELETE", pathOf`/courses/${created.data._id}`);
    expect(deleted.data).toBeUndefined();
  });

  it("request() refuses an unknown method or a body that is not JSON, with nothing sent", async () => {
    const badMethod = await rejectionOf(client.request("TRACE" as "GET", "/courses"));
    expect(badMethod).toBeInstanceOf(PlatformInvalidRequestError);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const badBody = await rejectionOf(client.request("POST", "/courses", circular));
    expect(badBody).toBeInstanceOf(PlatformInvalidRequestError);
    expect(emulator.requests).toHaveLength(0);
  });

  it("exposes env, the platform origin and the redacted key, never the key", () => {
    expect(client.env).toBe("dev");
    expect(client.platformOrigin).toBe(emulator.url);
    expect(client.redactedKey).toMatch(/^svc_test_….{4}$/);
  });
});

describe.each(["bare", "mixed"] as const)("with %s responses", (responseShape) => {
  let emulator: Emulator;
  let client: TestClient;
  beforeAll(async () => {
    emulator = await emulatorWith({ responseShape });
    client = clientFor(emulator.url);
  });
  afterAll(async () => {
    client.close();
    await emulator.close();
  });

  it("reads every resource the same way, taking the request id from X-Request-Id when there is no meta", async () => {
    const course = await client.courses.create({ name: "Bare" });
    const listed = await client.courses.list();
    const retrieved = await client.courses.retrieve(course.data._id);
    const updated = await client.courses.update(course.data._id, { level: "graduate" });
    const klass = await client.classes.create(course.data._id, { name: "C", ...CLASS_DATES });
    const exam = await client.oralAssessments.create({ name: "X", classId: klass.data._id, questions: [{ text: "Q" }] });
    const token = await client.students.createSignInToken({
      email: "b@example.edu", firstName: "B", lastName: "C", orgInternalId: "b", classId: klass.data._id,
    });
    const results = [course, listed, retrieved, updated, klass, exam, token];
    expect(course.data).toMatchObject({ name: "Bare", level: "undergraduate" });
    expect(listed.data.map((c) => c._id)).toContain(course.data._id);
    expect(retrieved.data._id).toBe(course.data._id);
    expect(updated.data.level).toBe("graduate");
    expect(exam.data.examType).toBe("Generic");
    expect(token.data.token).toMatch(/^signin_/);
    for (const result of results) expect(result.meta?.requestId).toMatch(/^req_/);
    await client.courses.del(course.data._id);
  });
});
