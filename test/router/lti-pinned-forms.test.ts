/**
 * The course offer's form and the app's consent functions, each check pinned (docs/lab/mutations.md:
 * each test here fails with its one check removed, `npm run mutations -- --only offer.` and
 * `binding.`). Real HTTP: the LMS emulator, the platform emulator, the session app.
 */
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { LmsUser } from "../../src/emulator/index.js";
import type { CanLinkContext } from "../../src/lti/options/options.js";
import { formFields, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

const CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context";
const USERS: LmsUser[] = [
  { id: "instructor-1", name: "Ines Instructor", givenName: "Ines", familyName: "Instructor", email: "ines@lms.example", role: "Instructor", sourcedId: "SIS-I-1" },
  { id: "student-1", name: "Sam Student", givenName: "Sam", familyName: "Student", email: "sam@lms.example", role: "Learner", sourcedId: "SIS-S-1" },
];

type Consent = (claims: Readonly<Record<string, unknown>>, ctx: CanLinkContext) => unknown;
/** What the app's canLink and canCopy answer, changed per test. */
const policy: { link: Consent; copy: Consent | undefined } = { link: () => false, copy: undefined };

const inCourse = (bench: LtiBench, id: string) => bench.lms.setClaims({ [CONTEXT]: { id, title: `Course ${id}` } });
const offerOf = (html: string) => /name="offer" value="([^"]+)"/.exec(html)?.[1];
const refusedChecks = (bench: LtiBench, from: number) => bench.stack.logger.lines.slice(from).filter((l) => l.obj.event === "lti_refused").map((l) => l.obj.check);

let bench: LtiBench;
let placed: string;
let courses = 0;

/** The instructor's launch, in a new course, of a link naming the exam placed in course A: the offer page. */
async function offerPage() {
  inCourse(bench, `course-${++courses}`);
  const link = bench.lms.addResourceLink({ title: "Optics (next term)", custom: { exam_id: placed } });
  const page = (await walkLaunch(bench, "instructor-1", { linkId: link.id })).launch;
  return { page, link: link.id, offer: offerOf(page.text) };
}
const choose = (fields: Record<string, string>) => request(bench.stack.app.url).post("/oral/lti/course").type("form").send(fields);

beforeAll(async () => {
  bench = await startLtiBench({
    canLink: (claims, ctx) => policy.link(claims, ctx) as boolean,
    canCopy: (claims, ctx) => (policy.copy ?? (() => true))(claims, ctx) as boolean,
  }, {}, USERS);
  // Course A's own exam, made from its picker (so linked to course A at once).
  inCourse(bench, "course-A");
  policy.link = (_c, ctx) => ctx.linkedTo === "this-course";
  const pickerPage = (await walkLaunch(bench, "instructor-1", { linkId: bench.lms.openDeepLinking({ targets: ["iframe"] }) })).launch;
  const pick = /name="pick" value="([^"]+)"/.exec(pickerPage.text)?.[1] ?? "";
  const made = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form")
    .send({ pick, create: "1", examName: "Optics", className: "Optics class", courseId: "", questions: "What bends light?" });
  expect(made.status, made.text).toBe(200);
  await request(bench.lms.url).post("/deep-link-return").type("form").send({ JWT: formFields(made.text).JWT! }).expect(200);
  const last = bench.lms.deepLinkReturns.at(-1)!;
  if (!last.ok) throw new Error(last.error);
  placed = last.links[0]!.custom.exam_id!;
});
afterAll(async () => { await bench?.close(); });
beforeEach(() => {
  policy.link = (_c, ctx) => ctx.linkedTo === "this-course";
  policy.copy = undefined;
});

describe("the course offer's form", () => {
  it("refuses an action other than copy or use (400 naming the field), changes nothing, and keeps the offer", async () => {
    const { offer } = await offerPage();
    const track = bench.stack.track();
    for (const action of ["", "link", "COPY"]) {
      const answer = await choose({ offer: offer!, action, className: "Optics next term" });
      expect(answer.status, action).toBe(400);
      expect(answer.text).toContain("field action");
    }
    expect(track()).toEqual([]);
    expect((await choose({ offer: offer!, action: "copy", className: "Optics next term" })).status).toBe(200);
  });

  it("refuses a copy whose class name is blank or over 200 characters (400 naming className), nothing copied", async () => {
    const { offer } = await offerPage();
    const track = bench.stack.track();
    for (const className of ["   ", "x".repeat(201)]) {
      const answer = await choose({ offer: offer!, action: "copy", className });
      expect(answer.status, className.slice(0, 5)).toBe(400);
      expect(answer.text).toContain("field className");
    }
    expect(track()).toEqual([]);
  });

  it("uses an offer up: a second action=use is 410", async () => {
    policy.link = () => true;
    const { page, offer } = await offerPage();
    expect(page.text).toContain('id="use"');
    expect((await choose({ offer: offer!, action: "use" })).status).toBe(200);
    const again = await choose({ offer: offer!, action: "use" });
    expect(again.status).toBe(410);
  });

  it("asks canCopy again on a hand-made action=copy: a page that offered only use copies nothing", async () => {
    policy.link = () => true;
    policy.copy = () => false;
    const { page, offer } = await offerPage();
    expect(page.text).toContain('id="use"');
    expect(page.text).not.toContain('id="copy"');
    const from = bench.stack.logger.lines.length;
    const track = bench.stack.track();
    const copied = await choose({ offer: offer!, action: "copy", className: "Stolen optics" });
    expect(copied.status).toBe(403);
    expect(refusedChecks(bench, from)).toEqual(["can_copy"]);
    expect(track()).toEqual([]);
  });
});

describe("the app's consent functions", () => {
  it("take only true as yes: a canLink answering a truthy non-boolean does not link", async () => {
    policy.link = () => "yes";
    policy.copy = () => false;
    const from = bench.stack.logger.lines.length;
    const { page, offer } = await offerPage();
    expect(page.status).toBe(403);
    expect(offer).toBeUndefined();
    expect(page.text).not.toContain('id="use"');
    expect(refusedChecks(bench, from)).toEqual(["can_copy"]);
  });

  it("canCopy decides alone: refusing the instructor who placed the exam (whom the default lets copy)", async () => {
    policy.copy = () => false;
    const { page, offer } = await offerPage();
    expect(page.status).toBe(403);
    expect(offer).toBeUndefined();
    expect(page.text).not.toContain('id="copy"');
  });
});
