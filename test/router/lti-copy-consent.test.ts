/**
 * Who may link and copy what (docs/lti.md "Who may link what"), over real HTTP with the
 * LMS emulator and the platform emulator, with the default `canLink` and `canCopy` and
 * with an app's `canLink` allowing one course only: the picker lists only this course's
 * own exams; an instructor of another course who names an exam's id gets no copy (a copy
 * discloses its questions) and none of their learners reach it; the instructor who placed
 * it gets the copy offer; a hand-made `action=use` or `action=copy` is asked again.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LmsUser } from "../../src/emulator/index.js";
import type { CanLinkContext } from "../../src/lti/options/options.js";
import { formFields, linkCourse, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

const CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context";
const USERS: LmsUser[] = [
  { id: "instructor-1", name: "Ines Instructor", givenName: "Ines", familyName: "Instructor", email: "ines@lms.example", role: "Instructor", sourcedId: "SIS-I-1" },
  { id: "instructor-2", name: "Otto Other", givenName: "Otto", familyName: "Other", email: "otto@lms.example", role: "Instructor", sourcedId: "SIS-I-2" },
  { id: "student-1", name: "Sam Student", givenName: "Sam", familyName: "Student", email: "sam@lms.example", role: "Learner", sourcedId: "SIS-S-1" },
];

const inCourse = (bench: LtiBench, id: string) => bench.lms.setClaims({ [CONTEXT]: { id, title: `Course ${id}` } });
const choicesOf = (html: string) => [...html.matchAll(/<button name="(?:examId|roleplayId)" value="([^"]+)">/g)].map((m) => m[1]!);
const pickOf = (html: string) => /name="pick" value="([^"]+)"/.exec(html)?.[1] ?? "";
const offerOf = (html: string) => /name="offer" value="([^"]+)"/.exec(html)?.[1];

/** The picker as `user` sees it in the current course. */
async function picker(bench: LtiBench, user: string) {
  const page = (await walkLaunch(bench, user, { linkId: bench.lms.openDeepLinking({ targets: ["iframe"] }) })).launch;
  expect(page.status, page.text).toBe(200);
  return { pick: pickOf(page.text), choices: choicesOf(page.text) };
}

/** `user` makes a new class and exam from the current course's picker: its id (the class is linked to that course). */
async function createFromPicker(bench: LtiBench, user: string, name: string): Promise<string> {
  const { pick } = await picker(bench, user);
  const made = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form")
    .send({ pick, create: "1", examName: name, className: `${name} class`, courseId: "", questions: `The secret question of ${name}?` });
  expect(made.status, made.text).toBe(200);
  await request(bench.lms.url).post("/deep-link-return").type("form").send({ JWT: formFields(made.text).JWT! }).expect(200);
  const last = bench.lms.deepLinkReturns.at(-1)!;
  if (!last.ok) throw new Error(last.error);
  return last.links[0]!.custom.exam_id!;
}

/** A learner's launch of `linkId` in the current course: its status, and whether it offered an exam link. */
async function learner(bench: LtiBench, linkId: string) {
  const { launch } = await walkLaunch(bench, "student-1", { linkId });
  return { status: launch.status, text: launch.text, link: /\/lti\/open\//.test(launch.text) };
}

const refusedChecks = (bench: LtiBench, from: number) => bench.stack.logger.lines.slice(from).filter((l) => l.obj.event === "lti_refused").map((l) => l.obj.check);

describe("LTI linking and copying with the default canLink and canCopy", () => {
  let bench: LtiBench;
  let placedInA: string;
  beforeAll(async () => {
    bench = await startLtiBench({ canLink: undefined }, {}, USERS);
    inCourse(bench, "course-A");
    placedInA = await createFromPicker(bench, "instructor-1", "Optics");
  });
  afterAll(async () => { await bench.close(); });

  it("the picker lists the course's own exams only: none another course placed, none made in the dashboard", async () => {
    inCourse(bench, "course-A");
    expect((await picker(bench, "instructor-1")).choices).toEqual([placedInA]);
    inCourse(bench, "course-new");
    const { pick, choices } = await picker(bench, "instructor-2");
    expect(choices).toEqual([]);
    // Chosen by hand: refused, nothing signed for the LMS.
    for (const examId of [placedInA, bench.examId]) {
      const forced = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form").send({ pick, examId });
      expect(forced.status).toBe(403);
      expect(forced.text).not.toContain("JWT");
    }
  });

  it("an instructor of course B naming course A's exam gets no copy, and no learner of B reaches it", async () => {
    inCourse(bench, "course-B");
    const link = bench.lms.addResourceLink({ title: "Optics (named by hand)", custom: { exam_id: placedInA } });
    const from = bench.stack.logger.lines.length;
    const track = bench.stack.track();
    const page = (await walkLaunch(bench, "instructor-2", { linkId: link.id })).launch;
    expect(page.status).toBe(403);
    expect(offerOf(page.text)).toBeUndefined();
    expect(page.text).toContain("only the instructor who placed it there may copy it");
    expect(page.text).toContain("lti.canCopy");
    expect(refusedChecks(bench, from)).toEqual(["can_copy"]);
    const refused = await learner(bench, link.id);
    expect(refused.status).toBe(403);
    expect(refused.link).toBe(false);
    expect(refused.text).toContain("This exam belongs to another course");
    // Nothing was read from or written to the platform (no copy, no launch).
    expect(track()).toEqual([]);
  });

  it("the instructor who placed it is offered the copy; a hand-made action=use is refused, and their learners stay out until the copy", async () => {
    inCourse(bench, "course-C");
    const link = bench.lms.addResourceLink({ title: "Optics (next term)", custom: { exam_id: placedInA } });
    const page = (await walkLaunch(bench, "instructor-1", { linkId: link.id })).launch;
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="copy"');
    expect(page.text).not.toContain('id="use"');
    const offer = offerOf(page.text)!;
    const from = bench.stack.logger.lines.length;
    const used = await request(bench.stack.app.url).post("/oral/lti/course").type("form").send({ offer, action: "use" });
    expect(used.status).toBe(403);
    expect(refusedChecks(bench, from)).toEqual(["can_link"]);
    expect((await learner(bench, link.id)).status).toBe(403);
    const copied = await request(bench.stack.app.url).post("/oral/lti/course").type("form").send({ offer, action: "copy", className: "Optics next term" });
    expect(copied.status, copied.text).toBe(200);
    expect((await learner(bench, link.id)).link).toBe(true);
  });
});

describe("LTI copying with an app's canLink allowing course A only", () => {
  let bench: LtiBench;
  const asked: CanLinkContext[] = [];
  beforeAll(async () => {
    bench = await startLtiBench({
      canLink: (claims, ctx) => {
        asked.push(ctx);
        return (claims[CONTEXT] as { id?: string } | undefined)?.id === "course-A";
      },
    }, {}, USERS);
    inCourse(bench, "course-A");
    await linkCourse(bench);
  });
  afterAll(async () => { await bench.close(); });

  it("an instructor of course B naming course A's exam gets no copy, and no learner of B reaches it", async () => {
    inCourse(bench, "course-B");
    const from = bench.stack.logger.lines.length;
    const track = bench.stack.track();
    const page = (await walkLaunch(bench, "instructor-2")).launch;
    expect(page.status).toBe(403);
    expect(offerOf(page.text)).toBeUndefined();
    expect(refusedChecks(bench, from)).toEqual(["can_copy"]);
    // canLink was asked about the copy, with the course asking and the course the class is linked to.
    expect(asked.at(-1)).toMatchObject({ purpose: "copy", linkedTo: "another-course", examId: bench.examId, course: { contextId: "course-B" } });
    expect(asked.at(-1)?.linkedCourses.map((c) => [c.contextId, c.linkedBy])).toEqual([["course-A", "instructor-1"]]);
    const refused = await learner(bench, bench.linkId);
    expect(refused.status).toBe(403);
    expect(refused.link).toBe(false);
    expect(track()).toEqual([]);
  });
});
