/**
 * One reading of a launch (src/lti/launch/typed-launch.ts), over real HTTP with the LMS and
 * platform emulators: the exam a learner's link names is read once, for the launch and for
 * course binding alike, and binding fails closed. A link whose exam the reading cannot
 * name is refused (403, nothing sent to the platform, no exam link); an alias added to the
 * one list of exam parameters is honoured by the instructor's page, by course binding
 * (its course is linked, another course is refused) and by the learner's launch. A second
 * parser anywhere (in the launch or in binding) would miss the alias and fail this test.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAM_PARAMETERS } from "../../src/lti/launch/typed-launch.js";
import { linkOf, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

const CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context";
const inCourse = (bench: LtiBench, id: string) => bench.lms.setClaims({ [CONTEXT]: { id, title: `Course ${id}` } });
const lastRefusal = (bench: LtiBench) => bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1)?.obj;

describe("a launch read once: the exam a learner's link names", () => {
  let bench: LtiBench;
  beforeAll(async () => { bench = await startLtiBench(); });
  afterAll(async () => { await bench.close(); });

  it.each([
    ["an id with characters no exam id has", "cells/../exam"],
    ["an id of 129 characters", "a".repeat(129)],
    ["an empty id", ""],
  ])("refuses a learner whose link names %s: 403, no exam link, nothing sent to the platform", async (_what, examId) => {
    inCourse(bench, "course-malformed");
    const linkId = bench.lms.addResourceLink({ title: "Malformed", custom: { exam_id: examId } }).id;
    const track = bench.stack.track();
    const { launch } = await walkLaunch(bench, "student-1", { linkId });
    expect(launch.status).toBe(403);
    expect(linkOf(launch.text)).toBeUndefined();
    expect(lastRefusal(bench)).toMatchObject({ check: "custom_exam_id", status: 403 });
    expect(track()).toEqual([]);
  });

  it("refuses a learner whose link names no exam at all, naming the custom parameter for the administrator", async () => {
    inCourse(bench, "course-no-exam");
    const linkId = bench.lms.addResourceLink({ title: "Nothing", custom: {} }).id;
    const { launch } = await walkLaunch(bench, "student-1", { linkId });
    expect(launch.status).toBe(403);
    expect(lastRefusal(bench)).toMatchObject({ check: "custom_exam_id" });
    expect(launch.text).toContain("the custom parameter exam_id=");
  });

  it("reads an alias added to the one list for the instructor's page, course binding and the learner's launch alike", async () => {
    EXAM_PARAMETERS.push({ name: "assessment_id", kind: "oral" });
    try {
      const linkId = bench.lms.addResourceLink({ title: "Aliased", custom: { assessment_id: bench.examId } }).id;
      // Not placed in this course: binding names the exam through the alias, and refuses the learner.
      inCourse(bench, "course-alias-unplaced");
      const refused = await walkLaunch(bench, "student-1", { linkId });
      expect(refused.launch.status).toBe(403);
      expect(lastRefusal(bench)).toMatchObject({ check: "course_binding", examId: bench.examId, contextId: "course-alias-unplaced" });
      // The instructor's launch names it through the alias too, and links the course.
      inCourse(bench, "course-alias");
      const page = await walkLaunch(bench, "instructor-1", { linkId });
      expect(page.launch.text).toMatch(/id="status">Ready: this course is now linked to/);
      // The learner of that course reaches the exam the alias names.
      const { launch } = await walkLaunch(bench, "student-2", { linkId });
      expect(launch.status).toBe(200);
      const opened = await request(bench.stack.app.url).get(linkOf(launch.text)!);
      expect(opened.status).toBe(303);
      expect(opened.headers.location).toContain(`/exam/${bench.examId}?__clerk_ticket=`);
    } finally {
      EXAM_PARAMETERS.pop();
    }
    // Without the alias, the same link names nothing the reading knows: binding refuses it.
    const linkId = bench.lms.addResourceLink({ title: "Aliased again", custom: { assessment_id: bench.examId } }).id;
    const { launch } = await walkLaunch(bench, "student-1", { linkId });
    expect(launch.status).toBe(403);
    expect(lastRefusal(bench)).toMatchObject({ check: "custom_exam_id" });
  });
});
