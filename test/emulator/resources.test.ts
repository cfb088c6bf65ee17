/**
 * The emulator's full API over raw HTTP: classes, oral assessments and role-plays with the
 * reference's validation and defaults (class mode `in-person`, the fallback question,
 * role-play length limits), partial updates, cascading deletes, other organizations
 * (403), and data kept per environment (404 across, both ways).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";
import { COURSE, call, seed, student } from "./helpers.js";

const OTHER_ORG_KEY = `svc_test_other_${"y".repeat(24)}`;
const ROLEPLAY = {
  roleplayStudentRole: "Patient", roleplayCoralRole: "Pharmacist",
  roleplayScenario: "s".repeat(150), roleplayScenarioDetails: "d".repeat(300),
};

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ testKeys: [TEST_KEY], liveKeys: [LIVE_KEY], otherOrgKeys: [OTHER_ORG_KEY], rateLimits: { dev: 10_000, prod: 10_000 } });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe("classes", () => {
  it("need only a name; classMode defaults to in-person, dates stay absent", async () => {
    const courseId = (await call(emu, "POST", "/courses", COURSE)).body.data._id;
    const res = await call(emu, "POST", `/courses/${courseId}/classes`, { name: "Plain" });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: "Plain", classMode: "in-person", courseId });
    expect(res.body.data).not.toHaveProperty("startDate");
    expect((await call(emu, "POST", `/courses/${courseId}/classes`, { name: "On", classMode: "online" })).body.data.classMode).toBe("online");
  });

  it("get, partial update (dates checked against the stored ones) and delete, within their course only", async () => {
    const { courseId, classId, examId } = await seed(emu);
    const other = (await call(emu, "POST", "/courses", COURSE)).body.data._id;
    expect((await call(emu, "GET", `/courses/${courseId}/classes/${classId}`)).body.data._id).toBe(classId);
    expect((await call(emu, "GET", `/courses/${other}/classes/${classId}`)).status).toBe(404);

    const renamed = await call(emu, "PUT", `/courses/${courseId}/classes/${classId}`, { name: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: "Renamed", classMode: "online", startDate: "2026-09-01T09:00:00.000Z" });
    const early = await call(emu, "PUT", `/courses/${courseId}/classes/${classId}`, { endDate: "2026-01-01" });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatchObject({ code: "validation_error", field: "endDate" });
    expect((await call(emu, "PUT", `/courses/${courseId}/classes/${classId}`, {})).status).toBe(400);

    expect((await call(emu, "DELETE", `/courses/${courseId}/classes/${classId}`)).status).toBe(204);
    expect((await call(emu, "GET", `/courses/${courseId}/classes/${classId}`)).status).toBe(404);
    // Its exams went with it.
    expect((await call(emu, "GET", `/oral-assessments/${examId}`)).status).toBe(404);
  });
});

describe("oral assessments", () => {
  it("without questions get the platform's fallback question and the reference's defaults", async () => {
    const { classId } = await seed(emu);
    const res = await call(emu, "POST", "/oral-assessments", { name: "Fallback", classId });
    expect(res.status).toBe(201);
    expect(res.body.data.questions).toEqual([{ id: "1", text: expect.stringContaining("Fallback") }]);
    expect(res.body.data).toMatchObject({
      duration: 600, examType: "Generic", examDescription: "", instructions: "", language: "en", isDraft: false,
      isGraded: true, isOpenBook: false, isAllowRetake: false, hideEvaluationFromStudent: false, hideGradeFromStudent: false,
      evaluationDifficulty: "Practice", evaluationStrategy: "ai-rubric",
    });
    // Given values win over the defaults.
    const given = await call(emu, "POST", "/oral-assessments", { name: "Given", classId, isGraded: false, language: "tr" });
    expect(given.body.data).toMatchObject({ isGraded: false, language: "tr" });
  });

  it("refuses an unknown language code and an empty question list with 400 naming the field", async () => {
    const { classId } = await seed(emu);
    const lang = await call(emu, "POST", "/oral-assessments", { name: "x", classId, language: "zh" });
    expect(lang.status).toBe(400);
    expect(lang.body.error.field).toBe("language");
    expect((await call(emu, "POST", "/oral-assessments", { name: "x", classId, questions: [] })).body.error.field).toBe("questions");
  });

  it("lists all or by ?classId=, updates partially (moving to another class of the org) and deletes", async () => {
    const a = await seed(emu);
    const b = await seed(emu);
    expect((await call(emu, "GET", "/oral-assessments")).body.data).toHaveLength(2);
    expect((await call(emu, "GET", `/oral-assessments?classId=${b.classId}`)).body.data.map((e: { _id: string }) => e._id)).toEqual([b.examId]);
    const moved = await call(emu, "PUT", `/oral-assessments/${a.examId}`, { classId: b.classId, isDraft: true });
    expect(moved.body.data).toMatchObject({ classId: b.classId, courseId: b.courseId, isDraft: true, name: "Cell biology oral" });
    expect((await call(emu, "PUT", `/oral-assessments/${a.examId}`, { classId: "nope" })).status).toBe(404);
    expect((await call(emu, "DELETE", `/oral-assessments/${a.examId}`)).status).toBe(204);
    expect((await call(emu, "GET", `/oral-assessments/${a.examId}`)).status).toBe(404);
  });
});

describe("role-plays", () => {
  it("are created with roleplayDuration 600 by default, listed by class, updated and deleted", async () => {
    const { classId } = await seed(emu);
    const res = await call(emu, "POST", "/roleplay", { name: "Pharmacy", classId, ...ROLEPLAY });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: "Pharmacy", classId, roleplayDuration: 600 });
    const id = res.body.data._id;
    expect((await call(emu, "GET", `/roleplay?classId=${classId}`)).body.data.map((r: { _id: string }) => r._id)).toEqual([id]);
    expect((await call(emu, "GET", "/roleplay?classId=other")).body.data).toEqual([]);
    expect((await call(emu, "PUT", `/roleplay/${id}`, { roleplayDuration: 120 })).body.data).toMatchObject({ roleplayDuration: 120, name: "Pharmacy" });
    expect((await call(emu, "DELETE", `/roleplay/${id}`)).status).toBe(204);
    expect((await call(emu, "GET", `/roleplay/${id}`)).status).toBe(404);
  });

  it.each([
    ["roleplayScenario", "s".repeat(149)], ["roleplayScenario", "s".repeat(3001)],
    ["roleplayScenarioDetails", "d".repeat(299)], ["roleplayScenarioDetails", "d".repeat(6001)],
  ])("answers 400 validation_error naming %s when its length is out of bounds", async (field, text) => {
    const { classId } = await seed(emu);
    const res = await call(emu, "POST", "/roleplay", { name: "R", classId, ...ROLEPLAY, [field]: text });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "validation_error", field });
    expect(emu.state().roleplays).toHaveLength(0);
  });
});

describe("organizations and environments", () => {
  it("another organization's key gets 403 on classes, exams and role-plays", async () => {
    const { courseId, classId, examId } = await seed(emu);
    const play = (await call(emu, "POST", "/roleplay", { name: "P", classId, ...ROLEPLAY })).body.data._id;
    const other = { key: OTHER_ORG_KEY };
    expect((await call(emu, "GET", `/courses/${courseId}/classes/${classId}`, undefined, other)).status).toBe(403);
    expect((await call(emu, "PUT", `/oral-assessments/${examId}`, { name: "Mine" }, other)).status).toBe(403);
    expect((await call(emu, "DELETE", `/roleplay/${play}`, undefined, other)).status).toBe(403);
    expect((await call(emu, "GET", "/roleplay", undefined, other)).body.data).toEqual([]);
  });

  it.each([["dev", "prod"], ["prod", "dev"]] as const)("data created with a %s key is 404 to a %s key, and absent from its lists", async (made, other) => {
    const { courseId, classId, examId } = await seed(emu, { env: made });
    const play = (await call(emu, "POST", "/roleplay", { name: "P", classId, ...ROLEPLAY }, { env: made })).body.data._id;
    const as = { env: other };
    for (const path of [`/courses/${courseId}`, `/courses/${courseId}/classes`, `/courses/${courseId}/classes/${classId}`, `/oral-assessments/${examId}`, `/roleplay/${play}`]) {
      expect((await call(emu, "GET", path, undefined, as)).status, path).toBe(404);
    }
    expect((await call(emu, "PUT", `/oral-assessments/${examId}`, { name: "Taken" }, as)).status).toBe(404);
    expect((await call(emu, "DELETE", `/courses/${courseId}`, undefined, as)).status).toBe(404);
    expect((await call(emu, "POST", "/oral-assessments", { name: "x", classId }, as)).status).toBe(404);
    expect((await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId }, as)).status).toBe(404);
    for (const path of ["/courses", "/oral-assessments", "/roleplay"]) {
      expect((await call(emu, "GET", path, undefined, as)).body.data, path).toEqual([]);
    }
    // Still there for its own environment, untouched.
    expect((await call(emu, "GET", `/oral-assessments/${examId}`, undefined, { env: made })).body.data.name).toBe("Cell biology oral");
    expect(emu.state().courses.map((c) => c.env)).toEqual([made]);
  });
});
