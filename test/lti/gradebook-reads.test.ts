/**
 * What the tool reads back from the LMS before a grade, against the LMS emulator over HTTP:
 *
 * - `result.readonly` granted: a grade the LMS has already (the same 17/20, the same
 *   comment) is not posted again, and the launch record's `meta.gradebook` says
 *   `unchanged`; a grade an instructor typed in the LMS (one the tool never sent) shows as
 *   `handGrade` on the tool's next grade, which still goes; with either, `lmsResultAt`, when
 *   the LMS's result last changed (its `timestamp`).
 * - Not granted: the launch's AGS claim does not list it, no token asks for it, and the
 *   same second grade is posted.
 * - `lineitem.readonly`: a line item that keeps no grade (the Moodle preset's None type
 *   lists no `scoreMaximum`) gets no grade post; the entry fails saying why. Without the
 *   read, the grade is posted and Moodle keeps nothing (test/lti/grade-safe.test.ts).
 * - The emulator's results endpoint answers the AGS result container, hand grades included,
 *   and refuses a token for a scope the registration was not granted.
 */
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { ProblemList } from "../../src/core/configuration-error.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { LTI_SCOPES, ServiceAccessError } from "../../src/lti/lms/service-access.js";
import { AssignmentsGradesService, RESULTS_TYPE } from "../../src/lti/services/ags.js";
import { freshAccess } from "../support/fake-lms.js";
import { DASHBOARD_EXAMS_LINKABLE, followToExam, launchFromCourse, placeExam, TOOL_KEY_PEM } from "../support/lti.js";
import { startStack, type Stack } from "../support/stack.js";

const poll = { timeout: 20_000, interval: 50 };
const AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint";
const ALL = [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly, LTI_SCOPES.resultReadonly, LTI_SCOPES.score, LTI_SCOPES.memberships];

async function toolFor(lms: LmsEmulator, scopes: readonly string[] = ALL): Promise<Stack> {
  const stack = await startStack({
    router: { lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, gradebook: { pollMs: 50, firstRetryMs: 100, maxRetryMs: 400 } } },
  });
  lms.registerTool(`${stack.app.url}/oral`, { scopes });
  return stack;
}

/** An exam placed in the course and reached by student-1: their LMS id, the id token's AGS claim, the record's studentId. */
async function learnerOf(lms: LmsEmulator, stack: Stack) {
  const { examId } = await stack.seedExam();
  const linkId = await placeExam({ lms }, examId);
  const launched = await launchFromCourse({ lms }, "student-1", linkId);
  const sub = String(decodeJwt(launched.idToken).sub);
  const before = lms.scores.filter((s) => s.userId === sub).length;
  expect((await followToExam(launched)).opened.status).toBe(303);
  await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(before + 1), poll);
  const ines = await stack.login("ines");
  const studentId = (await ines.get(`/oral/oral-assessments/${examId}/launches`)).body.data[0].student.orgInternalId as string;
  const grade = async (scoreGiven: number, comment: string) => {
    const r = await ines.post(`/oral/oral-assessments/${examId}/scores`).send({ studentId, scoreGiven, scoreMaximum: 20, comment });
    expect(r.status, r.text).toBe(202);
  };
  /** The grades of the record's `meta.gradebook`, oldest first, once none is pending. */
  const told = async (n: number) => {
    let grades: Record<string, unknown>[] = [];
    await vi.waitFor(async () => {
      const scores = (await ines.get(`/oral/oral-assessments/${examId}/launches`)).body.meta.gradebook[0].scores as Record<string, unknown>[];
      grades = scores.filter((s) => s.scoreGiven !== undefined).reverse();
      expect(grades.map((g) => g.state)).toEqual(Array(n).fill(expect.stringMatching(/^(sent|failed)$/)));
    }, poll);
    return grades;
  };
  const lineItem = lms.scores.filter((s) => s.userId === sub).at(-1)!.lineItemId;
  const posted = () => lms.scores.filter((s) => s.userId === sub && s.lineItemId === lineItem && s.scoreGiven !== undefined);
  return { examId, sub, idToken: launched.idToken, grade, told, lineItem, posted };
}

describe("result.readonly granted: the learner's result read before a grade", () => {
  let lms: LmsEmulator;
  let stack: Stack;
  beforeAll(async () => {
    lms = await createLmsEmulator();
    stack = await toolFor(lms);
  });
  afterAll(async () => {
    await stack?.close();
    await lms?.close();
  });

  it("the same grade twice: posted once; the second says unchanged. A new comment is a change", async () => {
    const l = await learnerOf(lms, stack);
    expect((decodeJwt(l.idToken)[AGS_CLAIM] as { scope: string[] }).scope).toContain(LTI_SCOPES.resultReadonly);
    await l.grade(17, "Clear and well argued.");
    await l.told(1);
    await l.grade(17, "Clear and well argued.");
    const [first, second] = await l.told(2);
    expect(first).toMatchObject({ state: "sent", scoreGiven: 17 });
    expect(first!.unchanged).toBeUndefined();
    expect(second).toMatchObject({ state: "sent", scoreGiven: 17, unchanged: true });
    // When the LMS's result last changed: the first grade's post (the second posted nothing).
    expect(second!.lmsResultAt).toBe(lms.gradebookResult(l.lineItem, l.sub)!.timestamp);
    expect(first!.lmsResultAt).toBeUndefined();
    // Posted by the tool: no hand grade.
    expect(second!.handGrade).toBeUndefined();
    expect(l.posted()).toHaveLength(1);

    await l.grade(17, "Clear, well argued, and on time.");
    const third = (await l.told(3))[2]!;
    expect(third.unchanged).toBeUndefined();
    expect(l.posted()).toHaveLength(2);
    expect(lms.gradebookResult(l.lineItem, l.sub)).toMatchObject({ scoreGiven: 17, comment: "Clear, well argued, and on time." });
  });

  it("a grade an instructor typed in the LMS shows as handGrade on the tool's next grade, which goes", async () => {
    const l = await learnerOf(lms, stack);
    lms.enterGrade(l.lineItem, l.sub, { scoreGiven: 75, comment: "Typed in the gradebook." });
    const typed = lms.gradebookResult(l.lineItem, l.sub)!.timestamp;
    await l.grade(17, "Clear and well argued.");
    const [graded] = await l.told(1);
    expect(graded).toMatchObject({ state: "sent", scoreGiven: 17, handGrade: { scoreGiven: 75, scoreMaximum: 100, comment: "Typed in the gradebook." } });
    // When the LMS's result was changed (its timestamp): the hand grade's.
    expect(graded!.lmsResultAt).toBe(typed);
    expect(graded!.unchanged).toBeUndefined();
    expect(l.posted()).toHaveLength(1);
    expect(lms.gradebookResult(l.lineItem, l.sub)).toMatchObject({ scoreGiven: 17, scoreMaximum: 20, gradedBy: "tool" });
  });

  it("the emulator's results: the AGS result container, the hand grade in it", async () => {
    const l = await learnerOf(lms, stack);
    lms.enterGrade(l.lineItem, l.sub, { scoreGiven: 60 });
    const access = freshAccess();
    const registration = registrationFor(lms);
    const answer = await access.call(registration, [LTI_SCOPES.resultReadonly], { url: `${l.lineItem}/results?user_id=${encodeURIComponent(l.sub)}`, accept: RESULTS_TYPE });
    expect(answer.headers["content-type"]).toContain(RESULTS_TYPE);
    expect(answer.body).toEqual([expect.objectContaining({ userId: l.sub, resultScore: 60, resultMaximum: 100, scoreOf: l.lineItem })]);
    const ags = new AssignmentsGradesService(access, registration, { lineItem: l.lineItem, scope: [LTI_SCOPES.resultReadonly] });
    expect(await ags.results(l.lineItem, l.sub)).toEqual([{ userId: l.sub, resultScore: 60, resultMaximum: 100, comment: expect.any(String), timestamp: lms.gradebookResult(l.lineItem, l.sub)!.timestamp }]);
  });
});

describe("result.readonly not granted", () => {
  it("the claim does not list it, no token asks for it, the LMS refuses one that does, and the same grade is posted again", async () => {
    const lms = await createLmsEmulator();
    const stack = await toolFor(lms, ALL.filter((s) => s !== LTI_SCOPES.resultReadonly));
    try {
      const l = await learnerOf(lms, stack);
      expect((decodeJwt(l.idToken)[AGS_CLAIM] as { scope: string[] }).scope.sort()).toEqual([LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly, LTI_SCOPES.score].sort());
      await l.grade(17, "Clear and well argued.");
      await l.told(1);
      await l.grade(17, "Clear and well argued.");
      const [, second] = await l.told(2);
      expect(second!.unchanged).toBeUndefined();
      expect(l.posted()).toHaveLength(2);
      expect(lms.tokenCounts.refused).toBe(0);
      const refused = await freshAccess().token(registrationFor(lms), [LTI_SCOPES.resultReadonly]).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ServiceAccessError);
      expect((refused as ServiceAccessError).message).toContain("invalid_scope");
    } finally {
      await stack.close();
      await lms.close();
    }
  });
});

describe("lineitem.readonly: a line item that keeps no grade", () => {
  it("Moodle's None-type item lists no scoreMaximum: the grade is not posted, and the record says why", async () => {
    const lms = await createLmsEmulator({ preset: "moodle" });
    const stack = await toolFor(lms);
    try {
      const l = await learnerOf(lms, stack);
      lms.setGradeType(l.lineItem, "none");
      await l.grade(17, "Clear and well argued.");
      const [graded] = await l.told(1);
      expect(graded).toMatchObject({ state: "failed", lastError: expect.stringContaining("The LMS will not keep this grade") });
      expect(graded!.lastError).toContain("type None");
      expect(l.posted()).toHaveLength(0);
      // Set to a points item, the next grade goes.
      lms.setGradeType(l.lineItem, "value");
      await l.grade(17, "Clear and well argued.");
      expect((await l.told(2))[1]).toMatchObject({ state: "sent" });
      expect(l.posted()).toHaveLength(1);
    } finally {
      await stack.close();
      await lms.close();
    }
  });
});

function registrationFor(lms: LmsEmulator) {
  const problems = new ProblemList();
  const lti = resolveLtiSettings({ keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()] }, problems)!;
  problems.throwIfAny("test");
  return lti.registrations.all()[0]!;
}
