/**
 * Course copy notices (LTI Platform Notification Service; issue 44, item 5), over real HTTP
 * against the LMS emulator's Canvas preset, which offers PNS in its launches, takes the
 * tool's handler registration (a bearer token with the noticehandlers scope) and sends a
 * copy notice when told "copy course A to B":
 *
 * - the tool registers its `LtiContextCopyNotice` handler after a launch carrying the
 *   claim, once (a second launch registers nothing);
 * - the notice marks course B as a copy of A in the store; B's learner who launches before
 *   the instructor's choice gets the "waiting for your instructor" page (a course copied
 *   with no notice still gets the old "belongs to another course" page); B's instructor
 *   gets the copy offer as before, and once the exam is copied B's learners reach the copy;
 * - a notice with a bad signature, an unknown kid, or a replayed nonce is refused
 *   (problem+json naming the check), and changes nothing.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { memoryStore } from "../../src/store/memory.js";
import type { LtiCourseKey } from "../../src/store/types.js";
import { DASHBOARD_EXAMS_LINKABLE, linkOf, lmsSigningKey, TOOL_KEY_PEM, walkLaunch, type LtiBench } from "../support/lti.js";
import { startStack } from "../support/stack.js";

const CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context";
const store = memoryStore();
let bench: LtiBench;
let lms: LmsEmulator;

beforeAll(async () => {
  lms = await createLmsEmulator({ preset: "canvas", signingKey: await lmsSigningKey() });
  const stack = await startStack({ router: { store, lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE } } });
  lms.registerTool(`${stack.app.url}/oral`);
  const { examId } = await stack.seedExam();
  const linkId = lms.addResourceLink({ title: "Cells", custom: { exam_id: examId } }).id;
  bench = { stack, lms, examId, linkId, close: async () => { await stack.close(); await lms.close(); } };
});
afterAll(() => bench?.close());

/** The LMS's next launches come from course `id` (`undefined`: the preset's own course). */
const inCourse = (id: string | undefined) => lms.setClaims(id === undefined ? {} : { [CONTEXT]: { id, title: `Course ${id}` } });
const courseKey = (contextId: string): LtiCourseKey => ({ issuer: lms.issuer, clientId: lms.clientId, deploymentId: lms.deploymentId, contextId });
const lastRefusal = () => bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1)?.obj;
const handlerUrl = () => `${bench.stack.app.url}/oral/lti/notices`;

describe("course copy notices from the Canvas preset", () => {
  it("registers the copy-notice handler after a launch that offers PNS, once", async () => {
    inCourse(undefined);
    expect((await walkLaunch(bench, "instructor-1")).launch.status).toBe(200);
    await vi.waitFor(() => expect(lms.noticeHandlers.get("LtiContextCopyNotice")).toBe(handlerUrl()), { timeout: 10_000, interval: 50 });
    expect(lms.noticeCounts).toMatchObject({ registrations: 1, refused: 0 });
    expect((await walkLaunch(bench, "student-1")).launch.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(lms.noticeCounts.registrations).toBe(1);
  });

  it("a copy notice marks the new course as waiting: its learner gets the waiting page; its instructor gets the choice; the copy then opens", async () => {
    const sent = await lms.copyCourse({ to: "course-b", title: "Biology 2027" });
    expect(sent.status, sent.answer).toBe(204);
    expect(await store.getLtiCourseCopyNotice(courseKey("course-b"))).toMatchObject({ originContextId: lms.courseId, noticeId: sent.noticeId });

    inCourse("course-b");
    const track = bench.stack.track();
    const waiting = (await walkLaunch(bench, "student-1")).launch;
    expect(waiting.status).toBe(403);
    expect(waiting.text).toContain("Waiting for your instructor");
    expect(linkOf(waiting.text)).toBeUndefined();
    expect(lastRefusal()).toMatchObject({ check: "course_copy_pending", contextId: "course-b", originContextId: lms.courseId });
    expect(track()).toEqual([]);

    // A course copied without a notice: the page as before.
    inCourse("course-c");
    const unnoticed = (await walkLaunch(bench, "student-1")).launch;
    expect(unnoticed.status).toBe(403);
    expect(unnoticed.text).toContain("belongs to another course");
    expect(unnoticed.text).not.toContain("Waiting for your instructor");

    // B's instructor: the choice as today (the linker of the original may copy it).
    inCourse("course-b");
    const offer = (await walkLaunch(bench, "instructor-1")).launch;
    expect(offer.status).toBe(200);
    expect(offer.text).toContain('id="copy"');
    const id = /name="offer" value="([^"]+)"/.exec(offer.text)![1]!;
    const copied = await request(bench.stack.app.url).post("/oral/lti/course").type("form").send({ offer: id, action: "copy", className: "Autumn 2027" });
    expect(copied.status, copied.text).toBe(200);
    const copyId = /id="copy-id">([^<]+)</.exec(copied.text)![1]!;
    const learner = (await walkLaunch(bench, "student-2")).launch;
    expect(learner.status).toBe(200);
    const opened = await request(bench.stack.app.url).get(linkOf(learner.text)!);
    expect(opened.headers.location).toContain(`/exam/${copyId}?__clerk_ticket=`);
  });

  it("the emulator's control endpoint copies a course too", async () => {
    const answer = await request(lms.url).post("/control/copy-course").send({ from: lms.courseId, to: "course-d" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ handlerStatus: 204 });
    expect((await store.getLtiCourseCopyNotice(courseKey("course-d")))?.originContextId).toBe(lms.courseId);
    expect((await request(lms.url).post("/control/copy-course").send({ from: lms.courseId })).status).toBe(400);
  });
});

describe("notices that are refused", () => {
  const problemOf = (answer: string) => JSON.parse(answer) as { code: string; status: number; errors: { path: string }[] };

  it("a bad signature: 401, check signature, nothing recorded", async () => {
    const sent = await lms.copyCourse({ to: "course-forged", fault: "bad_signature" });
    expect(sent.status).toBe(401);
    expect(problemOf(sent.answer)).toMatchObject({ code: "lti_notice_signature", errors: [{ path: "notices[0].jwt" }] });
    expect(await store.getLtiCourseCopyNotice(courseKey("course-forged"))).toBeUndefined();
  });

  it("an unknown kid: 401, check kid, the key set fetched again at most once, nothing recorded", async () => {
    const fetches = lms.jwksFetches;
    const sent = await lms.copyCourse({ to: "course-stranger", fault: "unknown_kid" });
    expect(sent.status).toBe(401);
    expect(problemOf(sent.answer).code).toBe("lti_notice_kid");
    expect(lms.jwksFetches).toBeLessThanOrEqual(fetches + 1);
    expect(await store.getLtiCourseCopyNotice(courseKey("course-stranger"))).toBeUndefined();
  });

  it("a replayed notice (its nonce used): 409, check replayed; the first one stands", async () => {
    const sent = await lms.copyCourse({ to: "course-e" });
    expect(sent.status).toBe(204);
    const replay = await request(handlerUrl()).post("").send({ notices: [{ jwt: sent.jwt }] });
    expect(replay.status).toBe(409);
    expect(replay.headers["content-type"]).toContain("application/problem+json");
    expect(replay.body).toMatchObject({ code: "lti_notice_replayed" });
    expect((await store.getLtiCourseCopyNotice(courseKey("course-e")))?.noticeId).toBe(sent.noticeId);
  });

  it("a body that is not notices: 400 naming the field", async () => {
    const answer = await request(handlerUrl()).post("").send({ jwt: "x" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: "lti_notice_notices", errors: [{ path: "notices" }] });
    const garbled = await request(handlerUrl()).post("").send({ notices: [{ jwt: "not.a.jwt" }] });
    expect(garbled.status).toBe(400);
    expect(garbled.body.errors[0].path).toBe("notices[0].jwt");
  });
});
