/**
 * The whole platform API through the client, against the emulator over real HTTP:
 * classes, oral assessments and role-plays (create, list, retrieve, partial update,
 * delete), what is sent (optional means optional: nothing invented), local refusals
 * (nothing sent), and environment isolation both ways.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { PlatformInvalidRequestError, PlatformNotFoundError, type OralAssessmentCreateInput } from "../../src/platform/index.js";
import { LIVE_KEY } from "../support/keys.js";
import { clientFor, emulatorWith, rejectionOf, type TestClient } from "./support.js";

const SCENARIO = "You are a customer returning a faulty kettle to a shop. ".repeat(3); // 168 characters
const DETAILS = "Play a polite but firm shop assistant who first offers a voucher, then a repair. ".repeat(4); // 324
const ROLEPLAY = { roleplayStudentRole: "Customer", roleplayCoralRole: "Shop assistant", roleplayScenario: SCENARIO, roleplayScenarioDetails: DETAILS };

let emulator: Emulator;
let dev: TestClient;
let prod: TestClient;
beforeAll(async () => {
  emulator = await emulatorWith({ rateLimits: { dev: 10_000, prod: 10_000 } });
  dev = clientFor(emulator.url, { rateLimitPerMinute: 10_000 });
  prod = clientFor(emulator.url, { apiKey: LIVE_KEY, rateLimitPerMinute: 10_000 });
});
afterAll(async () => {
  dev.close();
  prod.close();
  await emulator.close();
});
beforeEach(() => emulator.reset());

const lastSent = () => emulator.requests.at(-1);

async function aClass(client = dev) {
  const course = await client.courses.create({ name: "Languages" });
  const cls = await client.classes.create(course.data._id, { name: "Group A" });
  return { courseId: course.data._id, classId: cls.data._id };
}

/** Awaits a local refusal and checks that nothing reached the emulator. */
async function refusedLocally(attempt: Promise<unknown>): Promise<string[]> {
  const before = emulator.requests.length;
  const error = await rejectionOf(attempt);
  expect(error).toBeInstanceOf(PlatformInvalidRequestError);
  expect(emulator.requests.length).toBe(before);
  return (error as unknown as PlatformInvalidRequestError).issues.map((i) => i.path);
}

describe("classes", () => {
  it("create sends only what was given (no dates, no classMode); the platform's default mode applies", async () => {
    const course = await dev.courses.create({ name: "Physics" });
    const { data } = await dev.classes.create(course.data._id, { name: "Evening" });
    expect(lastSent()?.body).toEqual({ name: "Evening" });
    expect(data).toMatchObject({ name: "Evening", classMode: "in-person", courseId: course.data._id });
    expect(data.startDate).toBeUndefined();
  });

  it("list, retrieve, update (partial) and del", async () => {
    const { courseId, classId } = await aClass();
    await dev.classes.create(courseId, { name: "Group B", classMode: "online" });
    expect((await dev.classes.list(courseId)).data.map((c) => c.name)).toEqual(["Group A", "Group B"]);
    expect((await dev.classes.retrieve(courseId, classId)).data.name).toBe("Group A");

    const updated = await dev.classes.update(courseId, classId, { endDate: "2026-12-20" });
    expect(lastSent()).toMatchObject({ method: "PUT", path: `/courses/${courseId}/classes/${classId}`, body: { endDate: "2026-12-20T00:00:00.000Z" } });
    expect(Object.keys(lastSent()?.body as object)).toEqual(["endDate"]);
    expect(updated.data).toMatchObject({ name: "Group A", classMode: "in-person", endDate: "2026-12-20T00:00:00.000Z" });

    await dev.classes.del(courseId, classId);
    expect(lastSent()).toMatchObject({ method: "DELETE", status: 204 });
    expect(await rejectionOf(dev.classes.retrieve(courseId, classId))).toBeInstanceOf(PlatformNotFoundError);
  });

  it("refuses an empty update, bad dates and bad ids locally", async () => {
    const { courseId, classId } = await aClass();
    expect(await refusedLocally(dev.classes.update(courseId, classId, {}))).toEqual(["(body)"]);
    expect(await refusedLocally(dev.classes.update(courseId, classId, { startDate: "2026-10-01", endDate: "2026-09-01" }))).toEqual(["endDate"]);
    expect(await refusedLocally(dev.classes.retrieve("..", ""))).toEqual(["courseId", "classId"]);
    expect(await refusedLocally(dev.classes.update(courseId, classId, { classMode: "remote" as "online" }))).toEqual(["classMode"]);
  });
});

describe("oral assessments", () => {
  it("without questions: none are sent, and the platform's fallback question comes back", async () => {
    const { classId } = await aClass();
    const { data } = await dev.oralAssessments.create({ name: "Speaking test", classId });
    expect(lastSent()?.body).not.toHaveProperty("questions");
    expect(data.questions).toEqual([{ id: "1", text: expect.stringContaining("Speaking test") }]);
    expect(data).toMatchObject({ language: "en", isGraded: true, isDraft: false, evaluationStrategy: "ai-rubric" });
  });

  it("types every documented field and sends them as given; unknown fields pass", async () => {
    const { classId } = await aClass();
    const body: OralAssessmentCreateInput = {
      name: "Oral", classId, language: "vn", isDraft: true, isGraded: false, isOpenBook: true, isAllowRetake: true,
      hideEvaluationFromStudent: true, hideGradeFromStudent: true, evaluationDifficulty: "Exam", evaluationStrategy: "model-answer",
      criteria: { rubricType: "ai", successCriteria: "Uses past tenses", extraKey: 1 }, modelAnswers: { q1: "An answer" },
      questions: [{ id: "q1", text: "Tell me about your holiday." }], futureField: { x: 1 },
    };
    const { data } = await dev.oralAssessments.create(body);
    expect(lastSent()?.body).toEqual({ ...body, duration: 600, examType: "Generic" });
    expect(data).toMatchObject({ language: "vn", evaluationStrategy: "model-answer", futureField: { x: 1 } });
  });

  it("refuses unknown language codes and strategies, naming them, with nothing sent", async () => {
    const fields = await refusedLocally(dev.oralAssessments.create({
      name: "x", classId: "c1", language: "vi" as "vn", evaluationStrategy: "vibes" as "curriculum", isDraft: "yes" as unknown as boolean,
    }));
    expect(fields).toEqual(["language", "isDraft", "evaluationStrategy"]);
  });

  it("list (all or by class), retrieve, update (partial) and del", async () => {
    const a = await aClass();
    const b = await aClass();
    const first = await dev.oralAssessments.create({ name: "A1", classId: a.classId });
    await dev.oralAssessments.create({ name: "B1", classId: b.classId });
    expect((await dev.oralAssessments.list()).data.map((e) => e.name)).toEqual(["A1", "B1"]);
    expect((await dev.oralAssessments.list({ classId: b.classId })).data.map((e) => e.name)).toEqual(["B1"]);
    expect(lastSent()?.path).toBe("/oral-assessments");
    expect((await dev.oralAssessments.retrieve(first.data._id)).data.name).toBe("A1");

    const updated = await dev.oralAssessments.update(first.data._id, { isDraft: true, duration: 900 });
    expect(lastSent()?.body).toEqual({ isDraft: true, duration: 900 });
    expect(updated.data).toMatchObject({ name: "A1", isDraft: true, duration: 900 });
    expect(await refusedLocally(dev.oralAssessments.update(first.data._id, {}))).toEqual(["(body)"]);
    expect(await refusedLocally(dev.oralAssessments.list({ classId: b.classId, status: "x" } as { classId: string }))).toEqual(["(body)"]);

    await dev.oralAssessments.del(first.data._id);
    expect(await rejectionOf(dev.oralAssessments.retrieve(first.data._id))).toBeInstanceOf(PlatformNotFoundError);
  });
});

describe("role-plays", () => {
  it("create, list by class, retrieve, update and del on /roleplay", async () => {
    const { classId } = await aClass();
    const { data } = await dev.roleplays.create({ name: "Returns desk", classId, ...ROLEPLAY });
    expect(lastSent()).toMatchObject({ method: "POST", path: "/roleplay", status: 201 });
    expect(lastSent()?.body).not.toHaveProperty("roleplayDuration");
    expect(data).toMatchObject({ classId, roleplayDuration: 600, roleplayStudentRole: "Customer" });
    expect((await dev.roleplays.list({ classId })).data.map((r) => r._id)).toEqual([data._id]);
    expect((await dev.roleplays.list({ classId: "another" })).data).toEqual([]);
    expect((await dev.roleplays.retrieve(data._id)).data.name).toBe("Returns desk");
    const updated = await dev.roleplays.update(data._id, { roleplayDuration: 300 });
    expect(lastSent()?.body).toEqual({ roleplayDuration: 300 });
    expect(updated.data).toMatchObject({ roleplayDuration: 300, roleplayScenario: SCENARIO.trim() });
    await dev.roleplays.del(data._id);
    expect(await rejectionOf(dev.roleplays.retrieve(data._id))).toBeInstanceOf(PlatformNotFoundError);
  });

  it("checks the reference's length limits before sending, naming the field", async () => {
    const { classId } = await aClass();
    const base = { name: "R", classId, ...ROLEPLAY };
    expect(await refusedLocally(dev.roleplays.create({ ...base, roleplayScenario: "x".repeat(149) }))).toEqual(["roleplayScenario"]);
    expect(await refusedLocally(dev.roleplays.create({ ...base, roleplayScenario: "x".repeat(3001) }))).toEqual(["roleplayScenario"]);
    expect(await refusedLocally(dev.roleplays.create({ ...base, roleplayScenarioDetails: "x".repeat(299) }))).toEqual(["roleplayScenarioDetails"]);
    expect(await refusedLocally(dev.roleplays.create({ ...base, roleplayScenarioDetails: "x".repeat(6001) }))).toEqual(["roleplayScenarioDetails"]);
    // Padding does not count towards the minimum.
    expect(await refusedLocally(dev.roleplays.create({ ...base, roleplayScenario: `${"x".repeat(140)}${" ".repeat(20)}` }))).toEqual(["roleplayScenario"]);
    const error = await rejectionOf(dev.roleplays.create({ ...base, roleplayScenario: "too short" }));
    expect(error.message).toMatch(/roleplayScenario must be at least 150 characters/);
    // The boundaries themselves are accepted.
    await dev.roleplays.create({ ...base, roleplayScenario: "x".repeat(150), roleplayScenarioDetails: "y".repeat(6000) });

    // On update, only the fields given are checked.
    const { data } = await dev.roleplays.create(base);
    await dev.roleplays.update(data._id, { name: "Renamed" });
    expect(await refusedLocally(dev.roleplays.update(data._id, { roleplayScenarioDetails: "short" }))).toEqual(["roleplayScenarioDetails"]);
    expect(await refusedLocally(dev.roleplays.create({ name: "R", classId } as typeof base))).toEqual([
      "roleplayStudentRole", "roleplayCoralRole", "roleplayScenario", "roleplayScenarioDetails",
    ]);
  });
});

describe("environments", () => {
  it("a dev key never reaches prod records, and a prod key never reaches dev records (404)", async () => {
    const d = await aClass(dev);
    const p = await aClass(prod);
    const devExam = await dev.oralAssessments.create({ name: "Dev exam", classId: d.classId });
    const prodPlay = await prod.roleplays.create({ name: "Prod play", classId: p.classId, ...ROLEPLAY });

    expect(await rejectionOf(prod.courses.retrieve(d.courseId))).toBeInstanceOf(PlatformNotFoundError);
    expect(await rejectionOf(prod.classes.retrieve(d.courseId, d.classId))).toBeInstanceOf(PlatformNotFoundError);
    expect(await rejectionOf(prod.oralAssessments.retrieve(devExam.data._id))).toBeInstanceOf(PlatformNotFoundError);
    expect(await rejectionOf(prod.oralAssessments.create({ name: "x", classId: d.classId }))).toBeInstanceOf(PlatformNotFoundError);
    expect(await rejectionOf(dev.courses.retrieve(p.courseId))).toBeInstanceOf(PlatformNotFoundError);
    expect(await rejectionOf(dev.roleplays.retrieve(prodPlay.data._id))).toBeInstanceOf(PlatformNotFoundError);
    expect(await rejectionOf(dev.roleplays.del(prodPlay.data._id))).toBeInstanceOf(PlatformNotFoundError);

    expect((await dev.courses.list()).data.map((c) => c._id)).toEqual([d.courseId]);
    expect((await prod.courses.list()).data.map((c) => c._id)).toEqual([p.courseId]);
    expect((await prod.oralAssessments.list()).data).toEqual([]);
    expect((await dev.roleplays.list()).data).toEqual([]);
    // The prod record survived the dev key's attempt.
    expect((await prod.roleplays.retrieve(prodPlay.data._id)).data.name).toBe("Prod play");
  });
});
