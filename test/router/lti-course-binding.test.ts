/**
 * Course binding (DESIGN.md v3), over real HTTP with the LMS emulator and the platform
 * emulator: a learner's launch opens an exam only in an LMS course its class is linked
 * to (else a 403 page, a log line, and no platform call); an instructor links it by
 * placing the exam (deep linking) or opening a link naming it; in a copied course the
 * instructor's first launch offers a copy into a new class, which the course's learners
 * then reach; `lti.canLink` decides what may be linked (the picker hides the rest); the
 * router's `canLaunch` is asked for LTI learners with `via: "lti"` and the claims.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanLinkContext } from "../../src/lti/options/options.js";
import type { LaunchContext } from "../../src/index.js";
import { formFields, linkCourse, linkOf, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

const CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context";

function pickerOf(html: string) {
  const pick = /name="pick" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const choices = [...html.matchAll(/<button name="(examId|roleplayId)" value="([^"]+)">/g)].map((m) => m[2]!);
  return { pick, choices };
}

/** The LMS's next launches come from this course (a copy of course-1, another section…). */
const inCourse = (bench: LtiBench, id: string, title = `Course ${id}`) => bench.lms.setClaims({ [CONTEXT]: { id, title } });

/** A learner's launch and, when it offered one, the followed exam link's answer. */
async function learnerReaches(bench: LtiBench, user = "student-1", linkId = bench.linkId) {
  const { launch } = await walkLaunch(bench, user, { linkId });
  const href = linkOf(launch.text);
  const opened = href ? await request(bench.stack.app.url).get(href) : undefined;
  return { launch, opened };
}

/** A new course → class → exam through the instructor API: the exam's id, and a resource link naming it. */
async function newExam(bench: LtiBench, name: string, questions = [{ text: `Tell me about ${name}.` }]) {
  const ines = await bench.stack.login("ines");
  const course = (await ines.post("/oral/courses").send({ name: `${name} course` }).expect(201)).body.data._id;
  const classId = (await ines.post(`/oral/courses/${course}/classes`).send({ name: `${name} class` }).expect(201)).body.data._id;
  const examId = (await ines.post("/oral/oral-assessments").send({ name, classId, questions, duration: 420 }).expect(201)).body.data._id as string;
  return { classId, examId, linkId: bench.lms.addResourceLink({ title: name, custom: { exam_id: examId } }).id };
}

/** Places `examId` through the picker and the LMS's return endpoint: the placed link's id. */
async function place(bench: LtiBench, examId: string): Promise<string> {
  const picker = pickerOf((await walkLaunch(bench, "instructor-1", { linkId: bench.lms.openDeepLinking({ targets: ["iframe"] }) })).launch.text);
  const chosen = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, examId }).expect(200);
  await request(bench.lms.url).post("/deep-link-return").type("form").send({ JWT: formFields(chosen.text).JWT! }).expect(200);
  const last = bench.lms.deepLinkReturns.at(-1)!;
  if (!last.ok) throw new Error(last.error);
  return last.links[0]!.id;
}

describe("LTI course binding", () => {
  let bench: LtiBench;
  beforeAll(async () => { bench = await startLtiBench(); });
  afterAll(async () => { await bench.close(); });

  it("refuses a learner of a course where the exam was not placed: a 403 page, a log line, no platform call", async () => {
    inCourse(bench, "course-unplaced");
    const track = bench.stack.track();
    const { launch } = await walkLaunch(bench, "student-1");
    expect(launch.status).toBe(403);
    expect(launch.text).toContain("Your instructor has not opened this exam in this course yet");
    expect(linkOf(launch.text)).toBeUndefined();
    const line = bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1)?.obj;
    expect(line).toMatchObject({ check: "course_binding", status: 403, examId: bench.examId, contextId: "course-unplaced" });
    expect(track()).toEqual([]);
  });

  it("lets the learners in once an instructor placed the exam with deep linking", async () => {
    inCourse(bench, "course-placed");
    expect((await walkLaunch(bench, "student-1")).launch.status).toBe(403);
    const linkId = await place(bench, bench.examId);
    const { launch, opened } = await learnerReaches(bench, "student-2", linkId);
    expect(launch.status).toBe(200);
    expect(opened?.status).toBe(303);
    expect(opened?.headers.location).toContain(`/exam/${bench.examId}?__clerk_ticket=`);
    // Another course of the same LMS is still refused.
    inCourse(bench, "course-elsewhere");
    expect((await walkLaunch(bench, "student-1")).launch.status).toBe(403);
  });

  it("lets the learners in once an instructor opened a link naming the exam there (a class linked to no course yet)", async () => {
    const { examId, linkId } = await newExam(bench, "Lenses");
    inCourse(bench, "course-opened");
    expect((await walkLaunch(bench, "student-1", { linkId })).launch.status).toBe(403);
    const { launch: page } = await walkLaunch(bench, "instructor-1", { linkId });
    expect(page.text).toMatch(/id="status">Ready: this course is now linked to Lenses class/);
    const { opened } = await learnerReaches(bench, "student-1", linkId);
    expect(opened?.headers.location).toContain(`/exam/${examId}?__clerk_ticket=`);
  });

  it("in a copied course, offers the instructor a copy (not the class as it is); once copied, learners reach the copy", async () => {
    const old = await newExam(bench, "Mitosis", [{ text: "What is mitosis?" }, { text: "Name its phases." }]);
    inCourse(bench, "course-2026", "Biology 2026");
    await linkCourse(bench, old.linkId);
    // Term rollover: the LMS copies the course, with its link still naming the old exam.
    inCourse(bench, "course-2027", "Biology 2027");
    expect((await walkLaunch(bench, "student-1", { linkId: old.linkId })).launch.status).toBe(403);
    const track = bench.stack.track();
    const offer = (await walkLaunch(bench, "instructor-1", { linkId: old.linkId })).launch;
    expect(offer.status).toBe(200);
    expect(offer.text).toContain('id="copy"');
    expect(offer.text).not.toContain('id="use"');
    expect(track()).toEqual([]);
    expect((await walkLaunch(bench, "student-1", { linkId: old.linkId })).launch.status).toBe(403);

    const id = /name="offer" value="([^"]+)"/.exec(offer.text)![1]!;
    const copied = await request(bench.stack.app.url).post("/oral/lti/course").type("form").send({ offer: id, action: "copy", className: "Autumn 2027" });
    expect(copied.status, copied.text).toBe(200);
    const copyId = /id="copy-id">([^<]+)</.exec(copied.text)![1]!;
    expect(copyId).not.toBe(old.examId);
    // The original read, a class made in its course, the copy made in that class: nothing else.
    expect(track().map((r) => `${r.method} ${r.path.split("/").slice(1, 2).join()}`)).toEqual(["GET oral-assessments", "POST courses", "POST oral-assessments"]);
    expect(track().find((r) => r.method === "GET")?.path).toBe(`/oral-assessments/${old.examId}`);
    // Same settings and questions, in the new class.
    const ines = await bench.stack.login("ines");
    const [original, copy] = await Promise.all([old.examId, copyId].map(async (e) => (await ines.get(`/oral/oral-assessments/${e}`).expect(200)).body.data));
    expect(copy.classId).not.toBe(original.classId);
    expect(copy.name).toBe(original.name);
    expect(copy.questions).toEqual(original.questions);
    expect(copy.duration).toBe(original.duration);
    // The offer is single use.
    expect((await request(bench.stack.app.url).post("/oral/lti/course").type("form").send({ offer: id, action: "copy" })).status).toBe(410);

    // The course's learners now reach the copy through the old link; the old course keeps the original.
    const { opened } = await learnerReaches(bench, "student-2", old.linkId);
    expect(opened?.headers.location).toContain(`/exam/${copyId}?__clerk_ticket=`);
    const again = (await walkLaunch(bench, "instructor-1", { linkId: old.linkId })).launch;
    expect(again.text).toMatch(/id="class">Autumn 2027</);
    expect(again.text).toMatch(/id="status">Ready/);
    inCourse(bench, "course-2026");
    expect((await learnerReaches(bench, "student-2", old.linkId)).opened?.headers.location).toContain(`/exam/${old.examId}?__clerk_ticket=`);
  });

  it("creates a new class and exam for the course from the picker, on the platform, and places it", async () => {
    inCourse(bench, "course-new", "Chemistry 2027");
    const picker = (await walkLaunch(bench, "instructor-1", { linkId: bench.lms.openDeepLinking({ targets: ["iframe"] }) })).launch;
    expect(picker.text).toContain("A new class and exam for this course");
    const { pick } = pickerOf(picker.text);
    const bad = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form").send({ pick, create: "1", examName: " " });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("examName");
    const track = bench.stack.track();
    const made = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form")
      .send({ pick, create: "1", examName: "Acids", className: "Chemistry 2027", courseId: "", questions: "What is an acid?\nWhat is a base?" });
    expect(made.status, made.text).toBe(200);
    expect(track().filter((r) => r.method === "POST").map((r) => r.path.split("/")[1])).toEqual(["courses", "courses", "oral-assessments"]);
    await request(bench.lms.url).post("/deep-link-return").type("form").send({ JWT: formFields(made.text).JWT! }).expect(200);
    const last = bench.lms.deepLinkReturns.at(-1)!;
    if (!last.ok) throw new Error(last.error);
    const examId = last.links[0]!.custom.exam_id!;
    const { opened } = await learnerReaches(bench, "student-1", last.links[0]!.id);
    expect(opened?.headers.location).toContain(`/exam/${examId}?__clerk_ticket=`);
    const exam = (await (await bench.stack.login("ines")).get(`/oral/oral-assessments/${examId}`).expect(200)).body.data;
    expect(exam.questions.map((q: { text: string }) => q.text)).toEqual(["What is an acid?", "What is a base?"]);
  });
});

describe("LTI course binding: lti.canLink", () => {
  let bench: LtiBench;
  let hidden: { classId: string; examId: string };
  const asked: CanLinkContext[] = [];
  beforeAll(async () => {
    bench = await startLtiBench({
      // Sections share classes on purpose, but nobody may link the hidden class.
      canLink: async (_claims, ctx) => {
        asked.push(ctx);
        return ctx.classId !== hidden.classId;
      },
    });
    const ines = await bench.stack.login("ines");
    const course = (await ines.post("/oral/courses").send({ name: "Staff only" }).expect(201)).body.data._id;
    const classId = (await ines.post(`/oral/courses/${course}/classes`).send({ name: "Hidden" }).expect(201)).body.data._id;
    hidden = { classId, examId: (await ines.post("/oral/oral-assessments").send({ name: "Secret", classId }).expect(201)).body.data._id };
  });
  afterAll(async () => { await bench.close(); });

  it("hides a class canLink refuses from the picker, and refuses its choice sent by hand", async () => {
    const picker = (await walkLaunch(bench, "instructor-1", { linkId: bench.lms.openDeepLinking({}) })).launch;
    const { pick, choices } = pickerOf(picker.text);
    expect(choices).toEqual([bench.examId]);
    expect(picker.text).not.toContain("Secret");
    // It says how many it hides, and why.
    expect(picker.text).toContain("1 exam of your school is not listed: an exam's class belongs to the LMS course it was first added to");
    expect(asked.some((c) => c.classId === hidden.classId && c.examId === hidden.examId && c.linkedTo === "none" && c.organization === "default")).toBe(true);
    const forced = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form").send({ pick, examId: hidden.examId });
    expect(forced.status).toBe(403);
    expect(forced.text).not.toContain("JWT");
    // Nor does opening a link naming it link it: its learners stay refused.
    const link = bench.lms.addResourceLink({ title: "Secret", custom: { exam_id: hidden.examId } });
    expect((await walkLaunch(bench, "instructor-1", { linkId: link.id })).launch.status).toBe(403);
    expect((await walkLaunch(bench, "student-1", { linkId: link.id })).launch.status).toBe(403);
  });

  it("offers the class as it is in another course when canLink consents; once used, that course's learners reach it", async () => {
    await linkCourse(bench);
    inCourse(bench, "section-b");
    const offer = (await walkLaunch(bench, "instructor-1")).launch;
    expect(offer.text).toContain('id="use"');
    const id = /name="offer" value="([^"]+)"/.exec(offer.text)![1]!;
    await request(bench.stack.app.url).post("/oral/lti/course").type("form").send({ offer: id, action: "use" }).expect(200);
    expect(asked.at(-1)).toMatchObject({ examId: bench.examId, linkedTo: "another-course" });
    expect((await learnerReaches(bench)).opened?.headers.location).toContain(`/exam/${bench.examId}?__clerk_ticket=`);
  });
});

describe("LTI course binding: canLaunch for LTI learners", () => {
  let bench: LtiBench;
  const seen: LaunchContext[] = [];
  beforeAll(async () => {
    bench = await startLtiBench({}, {
      router: {
        canLaunch: (_req, ctx) => {
          seen.push(ctx);
          return ctx.via === "lti" && ctx.claims?.sub !== "student-2";
        },
      },
    });
    await linkCourse(bench);
  });
  afterAll(async () => { await bench.close(); });

  it("asks canLaunch with via: lti and the verified claims, and honours its refusal with no sign-in call", async () => {
    const ok = await learnerReaches(bench, "student-1");
    expect(ok.opened?.status).toBe(303);
    expect(seen.at(-1)).toMatchObject({
      via: "lti", examId: bench.examId, student: { email: "sam@lms.example" },
      claims: { sub: "student-1", iss: bench.lms.issuer, [CONTEXT]: { id: "course-1" }, "https://purl.imsglobal.org/spec/lti/claim/deployment_id": bench.lms.deploymentId },
    });
    expect(seen.at(-1)?.claims).not.toHaveProperty("nonce");
    const track = bench.stack.track();
    const refused = await learnerReaches(bench, "student-2");
    expect(refused.launch.status).toBe(200);
    expect(refused.opened?.status).toBe(403);
    expect(refused.opened?.text).toContain("You cannot take this exam");
    expect(track()).toEqual([]);
  });
});
