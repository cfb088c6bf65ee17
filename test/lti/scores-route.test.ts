/**
 * `POST /oral-assessments/:examId/scores` and `POST /roleplays/:roleplayId/scores` over
 * HTTP (the LMS emulator, the session app as its tool): an `Idempotency-Key` makes a retry
 * answer the first 202 (`Idempotent-Replayed: true`) and the LMS gets the grade once; the
 * same key with another body is a 422; the role-play route counts only role-play launches
 * (a learner of an oral exam with the same id has no place there: 400 naming `studentId`).
 */
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { DASHBOARD_EXAMS_LINKABLE, followToExam, launchFromCourse, placeExam, TOOL_KEY_PEM } from "../support/lti.js";
import { startStack, type Stack } from "../support/stack.js";

const poll = { timeout: 20_000, interval: 50 };

describe("the scores routes", () => {
  let lms: LmsEmulator;
  let stack: Stack;
  beforeAll(async () => {
    lms = await createLmsEmulator();
    stack = await startStack({ router: { lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, gradebook: { pollMs: 50 } } } });
    lms.registerTool(`${stack.app.url}/oral`);
  });
  afterAll(async () => {
    await stack?.close();
    await lms?.close();
  });

  it("an Idempotency-Key: the retry replays the 202 and the LMS gets the grade once; the key with another body is a 422", async () => {
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const launched = await launchFromCourse({ lms }, "student-1", linkId);
    expect((await followToExam(launched)).opened.status).toBe(303);
    const sub = String(decodeJwt(launched.idToken).sub);
    await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(1), poll);
    const ines = await stack.login("ines");
    const path = `/oral/oral-assessments/${examId}/scores`;
    const body = { studentId: "sam@lms.example", scoreGiven: 17, scoreMaximum: 20, comment: "Good." };
    const first = await ines.post(path).set("Idempotency-Key", "grade-1").send(body);
    expect(first.status, first.text).toBe(202);
    const again = await ines.post(path).set("Idempotency-Key", "grade-1").send(body);
    expect(again.status).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await ines.post(path).set("Idempotency-Key", "grade-1").send({ ...body, scoreGiven: 18 });
    expect(other.status).toBe(422);
    await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(2), poll);
    await new Promise((r) => setTimeout(r, 300));
    expect(lms.scores.filter((s) => s.userId === sub && s.scoreGiven !== undefined)).toHaveLength(1);

    // The role-play route: the same id, but no role-play launch of it.
    const roleplay = await ines.post(`/oral/roleplays/${examId}/scores`).send(body);
    expect(roleplay.status).toBe(400);
    expect(roleplay.body.errors.map((e: { path: string }) => e.path)).toEqual(["studentId"]);
  });
});
