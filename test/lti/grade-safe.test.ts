/**
 * Grade-safe posts against the LMS emulator's Canvas preset, which does what Canvas's Score
 * API does (src/emulator/lms/gradebook-rules.ts): a score without `scoreGiven` clears the
 * learner's grade unless it says `preserve_score`, replaces an instructor's grade unless it
 * says `prioritize_non_tool_grade`, and starts a new attempt unless `new_submission: false`.
 *
 * - A grade the app sends (`POST /oral-assessments/:examId/scores` in the contract's single
 *   form) reaches Canvas as 17/20 FullyGraded with its comment; the learner's return, a
 *   replay of it and a new launch after it queue nothing: 17/20 stays.
 * - A grade an instructor typed in Canvas (17/20) survives the learner's return, a replayed
 *   return and a new launch's `Started`: each status post carries the extension. Remove the
 *   extension (entries.ts's `gradeSafeExtension`) and this test fails: Canvas clears the grade.
 * - The Moodle preset's None-type grade item answers 200 to a score and keeps nothing (for a
 *   tool that cannot read the line item first).
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { applyScore, CANVAS_SUBMISSION, type LmsResult, type ScoreIn } from "../../src/emulator/lms/gradebook-rules.js";
import { placeExam } from "../support/lti.js";
import type { Stack } from "../support/stack.js";
import { FAST_GRADEBOOK, reachExam, toolFor } from "./support/gradebook-tool.js";
import { memoryStore } from "../../src/index.js";

const poll = { timeout: 20_000, interval: 50 };
const settle = () => new Promise((r) => setTimeout(r, 400));

describe("Canvas: a status post never clears or replaces a grade", () => {
  let lms: LmsEmulator;
  let stack: Stack;
  beforeAll(async () => {
    lms = await createLmsEmulator({ preset: "canvas" });
    stack = await toolFor(lms);
  });
  afterAll(async () => {
    await stack?.close();
    await lms?.close();
  });

  const scoresOf = (sub: string) => lms.scores.filter((s) => s.userId === sub);

  it("the app's 17/20 (the contract's single score) reaches Canvas; a return, its replay and a new launch after it send nothing", async () => {
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const { sub, mark } = await reachExam(lms, linkId);
    await vi.waitFor(() => expect(scoresOf(sub)).toHaveLength(1), poll);
    const ines = await stack.login("ines");
    const record = await ines.get(`/oral/oral-assessments/${examId}/launches`);
    const studentId = record.body.data[0].student.orgInternalId as string;
    expect(studentId).toBeTruthy();

    const graded = await ines.post(`/oral/oral-assessments/${examId}/scores`).send({ studentId, scoreGiven: 17, scoreMaximum: 20, comment: "Clear and well argued." });
    expect(graded.status, graded.text).toBe(202);
    expect(graded.body.data).toEqual([{ student: studentId, queued: 1 }]);
    await vi.waitFor(() => expect(scoresOf(sub)).toHaveLength(2), poll);
    expect(scoresOf(sub)[1]).toMatchObject({ scoreGiven: 17, scoreMaximum: 20, gradingProgress: "FullyGraded", comment: "Clear and well argued." });
    const lineItem = scoresOf(sub)[1]!.lineItemId;

    for (let i = 0; i < 2; i++) expect((await request(stack.app.url).get("/oral/lti/return").set("Cookie", mark!)).status).toBe(200);
    await reachExam(lms, linkId);
    await settle();
    expect(scoresOf(sub).map((s) => s.activityProgress)).toEqual(["Started", "Completed"]);
    expect(lms.gradebookResult(lineItem, sub)).toMatchObject({ scoreGiven: 17, scoreMaximum: 20 });
  });

  it("an instructor's 17/20 typed in Canvas survives a return, a replayed return and a Started: every status post says keep it", async () => {
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const { sub, mark } = await reachExam(lms, linkId, "student-2");
    await vi.waitFor(() => expect(scoresOf(sub)).toHaveLength(1), poll);
    const lineItem = scoresOf(sub)[0]!.lineItemId;
    lms.enterGrade(lineItem, sub, { scoreGiven: 17, comment: "Typed in SpeedGrader." });
    const attempts = lms.gradebookResult(lineItem, sub)!.attempt;

    for (let i = 0; i < 2; i++) expect((await request(stack.app.url).get("/oral/lti/return").set("Cookie", mark!)).status).toBe(200);
    await vi.waitFor(() => expect(scoresOf(sub).filter((s) => s.activityProgress === "Submitted").length).toBeGreaterThanOrEqual(1), poll);
    await reachExam(lms, linkId, "student-2");
    await vi.waitFor(() => expect(scoresOf(sub).filter((s) => s.activityProgress === "Started")).toHaveLength(2), poll);
    await settle();
    expect(lms.gradebookResult(lineItem, sub)).toMatchObject({ scoreGiven: 17, scoreMaximum: lms.lineItems.find((i) => lineItem.endsWith(`/${i.id}`))!.scoreMaximum, gradedBy: "instructor" });
    // The returns were submissions (new attempts); the launch's Started was not.
    const submitted = scoresOf(sub).filter((s) => s.activityProgress === "Submitted").length;
    expect(lms.gradebookResult(lineItem, sub)!.attempt).toBe(attempts + submitted);
  });
});

describe("Canvas: grades the tool no longer knows of", () => {
  let lms: LmsEmulator;
  beforeAll(async () => { lms = await createLmsEmulator({ preset: "canvas" }); });
  afterAll(async () => { await lms?.close(); });
  const scoresOf = (sub: string) => lms.scores.filter((s) => s.userId === sub);

  it("a tool grade whose entry was purged (retentionDays) survives the next launch's Started: the status says preserve_score", async () => {
    const store = memoryStore();
    const stack = await toolFor(lms, { router: { store } });
    try {
      const { examId } = await stack.seedExam();
      const linkId = await placeExam({ lms }, examId);
      const { sub } = await reachExam(lms, linkId);
      await stack.app.router.lti.postScore({ examId, scores: [{ student: "sam@lms.example", scoreGiven: 17, scoreMaximum: 20 }] });
      await vi.waitFor(() => expect(scoresOf(sub).filter((s) => s.scoreGiven === 17)).toHaveLength(1), poll);
      const lineItem = scoresOf(sub).at(-1)!.lineItemId;
      await vi.waitFor(async () => expect((await store.listLtiScores("default", { kind: "oral", examId, limit: 10 })).every((e) => e.state === "sent")).toBe(true), poll);
      // Past the retention: the tool forgets it sent a grade, so the next launch's Started is queued.
      expect(await store.purgeLtiScores(Date.now() + 1, 100)).toBeGreaterThan(0);
      const before = scoresOf(sub).length;
      await reachExam(lms, linkId);
      await vi.waitFor(() => expect(scoresOf(sub).length).toBe(before + 1), poll);
      expect(scoresOf(sub).at(-1)).toMatchObject({ activityProgress: "Started" });
      expect(lms.gradebookResult(lineItem, sub)).toMatchObject({ scoreGiven: 17, scoreMaximum: 20, gradedBy: "tool" });
    } finally {
      await stack.close();
    }
  });

  it("a grade given up (never reached the LMS) does not silence the learner's later statuses", async () => {
    const stack = await toolFor(lms, { gradebook: { ...FAST_GRADEBOOK, maxAttempts: 1 } });
    try {
      const { examId } = await stack.seedExam();
      const linkId = await placeExam({ lms }, examId);
      const { sub } = await reachExam(lms, linkId, "student-2");
      await vi.waitFor(() => expect(scoresOf(sub)).toHaveLength(1), poll);
      // A short outage: its 503's Retry-After pauses the LMS for about 2 s, and the one attempt allowed fails.
      lms.setGradebookOutage(2_000);
      await stack.app.router.lti.postScore({ examId, scores: [{ student: "ada@lms.example", scoreGiven: 12, scoreMaximum: 20 }] });
      const ines = await stack.login("ines");
      await vi.waitFor(async () => {
        const told = (await ines.get(`/oral/oral-assessments/${examId}/launches`)).body.meta.gradebook[0].scores as { state: string; scoreGiven?: number }[];
        expect(told.find((s) => s.scoreGiven === 12)?.state).toBe("failed");
      }, poll);
      await reachExam(lms, linkId, "student-2");
      await vi.waitFor(() => expect(scoresOf(sub).map((s) => s.activityProgress)).toEqual(["Started", "Started"]), poll);
    } finally {
      await stack.close();
    }
  });
});

describe("the emulator's gradebook rules", () => {
  const score = (over: Partial<ScoreIn> = {}): ScoreIn => ({ lineItemId: "li", userId: "u", activityProgress: "Submitted", gradingProgress: "PendingManual", timestamp: new Date().toISOString(), body: {}, ...over });
  const graded = (): LmsResult => ({ lineItemId: "li", userId: "u", activityProgress: "Completed", gradingProgress: "FullyGraded", scoreGiven: 17, scoreMaximum: 20, attempt: 1, gradedBy: "tool", timestamp: new Date(Date.now() - 1000).toISOString() });

  it("Canvas: a status post without the extension clears the grade and is a new attempt; with it, keeps both", () => {
    expect(applyScore("canvas", graded(), score(), "value")).toMatchObject({ attempt: 2 });
    expect(applyScore("canvas", graded(), score(), "value")!.scoreGiven).toBeUndefined();
    const safe = score({ activityProgress: "Started", body: { [CANVAS_SUBMISSION]: { preserve_score: true, prioritize_non_tool_grade: true, new_submission: false } } });
    expect(applyScore("canvas", graded(), safe, "value")).toMatchObject({ scoreGiven: 17, scoreMaximum: 20, attempt: 1 });
    // The spec's own rule: the latest score is the result.
    expect(applyScore("spec", graded(), score(), "value")!.scoreGiven).toBeUndefined();
  });

  it("Moodle: a grade on a None-type item answers 200 and keeps nothing (a tool without the line item read posts it)", async () => {
    const lms = await createLmsEmulator({ preset: "moodle" });
    // Only the score scope: the tool cannot read the line item first (test/lti/gradebook-reads.test.ts: with it, no post).
    const stack = await toolFor(lms, { scopes: ["https://purl.imsglobal.org/spec/lti-ags/scope/score"] });
    try {
      const { examId } = await stack.seedExam();
      const linkId = await placeExam({ lms }, examId);
      const item = lms.lineItems.find((i) => i.resourceId === examId)!;
      const lineItem = `${lms.url}/lineitems/${item.id}`;
      lms.setGradeType(lineItem, "none");
      const { sub } = await reachExam(lms, linkId);
      await stack.app.router.lti.postScore({ examId, scores: [{ student: "sam@lms.example", scoreGiven: 17, scoreMaximum: 20 }] });
      await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(2), poll);
      const ines = await stack.login("ines");
      await vi.waitFor(async () => {
        const told = (await ines.get(`/oral/oral-assessments/${examId}/launches`)).body.meta.gradebook[0].scores;
        expect(told.map((s: { state: string }) => s.state)).toEqual(["sent", "sent"]);
      }, poll);
      expect(lms.gradebookResult(lineItem, sub)).toBeUndefined();
    } finally {
      await stack.close();
      await lms.close();
    }
  });
});
