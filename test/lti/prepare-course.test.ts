/**
 * *Prepare this exam for the course* over HTTP: an instructor's launch from the LMS
 * emulator's course, the page's form posted, the roster read through NRPS into the
 * router's prepare, its progress, then a learner's launch that reaches the exam with no
 * sign-in call to the platform (its prepared token). A 401 from NRPS prepares nothing;
 * two members the mapping makes one student (one SIS id) are prepared once; five forms of
 * one course posted at once read the roster once, in process and in a Redis fleet.
 */
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LaunchContext } from "../../src/router/shared/options.js";
import { humanTime } from "../../src/core/human-time.js";
import { memoryStore } from "../../src/store/memory.js";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { followToExam, launchFromCourse, startLtiBench, type LtiBench } from "../support/lti.js";

const SIGN_IN = "/students/sign-in-token";
const REFUSED = "learner-00003@lms.example";
let bench: LtiBench;
let store: OralStoreWithLti;

const decode = (t: string) => t.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))).replace(/&amp;/g, "&");
const text = (html: string, id: string) => decode(new RegExp(`id="${id}">([^<]*)<`).exec(html)?.[1] ?? "");

async function instructorForm(): Promise<{ action: URL; form: string; page: string; cookie: string | undefined }> {
  const { launch, launchUrl, cookie } = await launchFromCourse(bench, "instructor-1", bench.linkId);
  expect(launch.status).toBe(200);
  const page = launch.text;
  const action = new URL(decode(/<form id="prepare-course" method="post" action="([^"]+)"/.exec(page)?.[1] ?? ""), launchUrl);
  const form = /name="form" value="([^"]+)"/.exec(page)?.[1];
  if (!form) throw new Error(`no prepare form on the instructor page: ${page.slice(0, 800)}`);
  return { action, form, page, cookie };
}

const startAt = () => new Date(Date.now() + 20_000).toISOString();
/** The form posted as the instructor's browser (its LTI cookie), or as another (`cookie` undefined or someone else's). */
const post = (action: URL, fields: Record<string, string>, cookie: string | undefined) => {
  const r = request(action.origin).post(action.pathname).type("form");
  return (cookie ? r.set("Cookie", cookie) : r).send(fields);
};

// A course of its own per test: one prepares the course, another checks that nothing was.
beforeEach(async () => {
  store = memoryStore();
  bench = await startLtiBench({}, { router: { store, canLaunch: (_req: unknown, ctx: LaunchContext) => ctx.student.email !== REFUSED } });
  bench.lms.setRoster({ size: 8, extra: [{ id: "no-mail", name: "Nora Nomail", givenName: "Nora", familyName: "Nomail", email: "", role: "Learner", sourcedId: "SIS-N" }] });
});
afterEach(async () => bench?.close());

describe("Prepare this exam for the course", () => {
  it("a 401 from NRPS: a page saying the roster could not be read, nothing prepared", async () => {
    const { action, form, cookie } = await instructorForm();
    bench.lms.setMembershipsFault("unauthorized");
    try {
      const answer = await post(action, { form, startAt: startAt(), tzOffsetMin: "0" }, cookie);
      expect(answer.status).toBe(502);
      expect(answer.text).toMatch(/The LMS(&#39;|&#x27;|')s roster could not be read/);
      expect(answer.text).toMatch(/contextmembership\.readonly/);
      // The LMS's answer (its 401) is in the log, not on the page: the form is no probe of the LMS.
      expect(answer.text).not.toMatch(/\b401\b/);
      expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_roster" && l.obj.status === 401)).toBe(true);
      expect(answer.text).not.toMatch(/Bearer|eyJ[\w-]+\./);
      // The form's id is no progress page's (and nothing was prepared).
      const progress = await request(action.origin).get(`${action.pathname}/${form}`);
      expect(progress.status).toBe(410);
    } finally {
      bench.lms.setMembershipsFault(undefined);
    }
  });

  it("answers 410 to a post with no form or a made-up one, reading no roster and asking for no token", async () => {
    const { action } = await instructorForm();
    const before = { tokens: bench.lms.tokenCounts.requests, pages: bench.lms.membershipCounts.pages };
    const sent = bench.stack.track();
    for (const form of [undefined, "not-a-form", "A".repeat(43), "<script>"]) {
      const answer = await request(action.origin).post(action.pathname).type("form").send({ ...(form === undefined ? {} : { form }), startAt: new Date(Date.now() + 20_000).toISOString(), tzOffsetMin: "0" });
      expect(answer.status, String(form)).toBe(410);
      expect(answer.text).toContain("This form has expired");
      expect(answer.text).not.toContain("<script>");
    }
    expect({ tokens: bench.lms.tokenCounts.requests, pages: bench.lms.membershipCounts.pages }).toEqual(before);
    expect(sent()).toEqual([]);
  });

  it("refuses a post without a start time, or with a time-zone offset past ±14 h, naming the field, reading no roster", async () => {
    const { action, form, cookie } = await instructorForm();
    const before = { tokens: bench.lms.tokenCounts.requests, pages: bench.lms.membershipCounts.pages };
    const sent = bench.stack.track();
    for (const fields of [{ startAt: "tomorrow" }, {} as Record<string, string>, { startAt: "2030-01-01T09:00", tzOffsetMin: "900" }, { startAt: "2030-01-01T09:00", tzOffsetMin: "-841" }]) {
      const answer = await post(action, { form, ...fields }, cookie);
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect(answer.text).toContain("startAt");
    }
    expect({ tokens: bench.lms.tokenCounts.requests, pages: bench.lms.membershipCounts.pages }).toEqual(before);
    expect(sent()).toEqual([]);
    // Refused before it was used: the same form, with a start time, still prepares.
    expect((await post(action, { form, startAt: startAt(), tzOffsetMin: "0" }, cookie)).status).toBe(200);
  });

  it("two roster members with one SIS id (one student): prepared once, and not listed as left out", async () => {
    // A second LMS account of Sam Student's (student-1, SIS-S-1), another e-mail: the default
    // mapping takes orgInternalId from lis_person_sourcedid, so both are the same student.
    const twin = { id: "student-1-old", name: "Sam Student", givenName: "Sam", familyName: "Student", email: "sam.old@lms.example", role: "Learner" as const, sourcedId: "SIS-S-1" };
    bench.lms.setRoster({ size: 9, extra: [twin, { id: "no-mail", name: "Nora Nomail", givenName: "Nora", familyName: "Nomail", email: "", role: "Learner", sourcedId: "SIS-N" }] });
    const { action, form, cookie } = await instructorForm();
    const answer = await post(action, { form, startAt: startAt(), tzOffsetMin: "0" }, cookie);
    expect(answer.status).toBe(200);
    // 8 learners: Sam twice, Ada, Nora (no e-mail), learner-00001..4 (00003 refused by canLaunch).
    expect(text(answer.text, "r-learners")).toBe("8");
    expect(text(answer.text, "r-left-out")).toBe("2");
    expect(answer.text).not.toContain("student-1-old");
    expect(decode(answer.text)).toContain("5 of the course's 8 active learners");
    expect(text(answer.text, "p-roster")).toBe("5");
    expect(text(answer.text, "c-students")).toBe("5");
  });

  it("prepares the course's learners, lists who was left out and why, and a learner then starts with no sign-in call", async () => {
    const { action, form, page, cookie } = await instructorForm();
    expect(page).toContain("Prepare this exam for the course");
    // The instructor's launch recorded the course's NRPS URL.
    const course = { issuer: bench.lms.issuer, clientId: bench.lms.clientId, deploymentId: bench.lms.deploymentId, contextId: "course-1" };
    expect((await store.getLtiCourseServices("default", course))?.membershipsUrl).toBe(`${bench.lms.url}/api/lti/courses/course-1/names_and_roles`);
    const startAt = new Date(Date.now() + 20_000);
    const answer = await post(action, { form, startAt: startAt.toISOString(), tzOffsetMin: "0" }, cookie);
    expect(answer.status).toBe(200);
    // Times in words, to the minute with the zone (docs/router.md, Dates and times), no ISO, no "State: issuing".
    expect(text(answer.text, "p-start")).toBe(humanTime(startAt));
    expect(answer.text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d|State: /);
    // 8 members: the instructor, 7 learners; Nora has no e-mail, learner-00003 is refused by canLaunch.
    expect(text(answer.text, "r-learners")).toBe("7");
    expect(text(answer.text, "r-left-out")).toBe("2");
    // The reason before the LMS user id: at 390 px the id is what scrolls out of view.
    expect(answer.text).toMatch(/Nora Nomail<\/td><td>no e-mail address from the LMS<\/td><td>no-mail</);
    expect(answer.text).toMatch(/<td>refused by the app(&#39;|')s canLaunch<\/td><td>learner-00003</);
    expect(text(answer.text, "p-roster")).toBe("5");
    expect(text(answer.text, "c-students")).toBe("5");
    expect(text(answer.text, "c-on-demand")).toBe("0");

    const progressUrl = new URL(decode(/id="progress-link" href="([^"]+)"/.exec(answer.text)![1]!));
    // The progress has an id of its own: the form's id, which posts, is in no URL.
    expect(progressUrl.pathname).not.toContain(form);
    const end = Date.now() + 20_000;
    let ready = "";
    while (Date.now() < end) {
      const progress = await request(progressUrl.origin).get(progressUrl.pathname);
      expect(progress.status).toBe(200);
      ready = text(progress.text, "p-ready");
      // What the instructor does next, not the plan's state name.
      expect(text(progress.text, "message")).toMatch(/^(Nothing to do now|Sign-ins are being prepared|Every prepared sign-in is ready)/);
      if (ready === "5") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(ready).toBe("5");

    const sent = bench.stack.track();
    const launch = await launchFromCourse(bench, "student-1", bench.linkId);
    expect(launch.launch.status).toBe(200);
    const { opened, examUrl } = await followToExam(launch);
    expect(opened.status).toBe(303);
    expect(examUrl).toBeDefined();
    expect(sent().filter((r) => r.path === SIGN_IN)).toEqual([]);
  });

  it("5 concurrent posts of one form read the roster once; a replay, or the form from another browser, is a 410 with nothing read", async () => {
    const { action, form, cookie } = await instructorForm();
    expect(cookie).toBeDefined();
    const fields = { form, startAt: startAt(), tzOffsetMin: "0" };
    // From another browser (none, or another's cookie): refused before anything is read, and the form stays the instructor's.
    const before = bench.lms.membershipCounts.pages;
    const tokens = bench.lms.tokenCounts.requests;
    for (const other of [undefined, `eoa_lti_browser=${"B".repeat(32)}`]) {
      const answer = await post(action, fields, other);
      expect(answer.status, String(other)).toBe(410);
    }
    expect(bench.lms.membershipCounts.pages).toBe(before);
    expect(bench.lms.tokenCounts.requests).toBe(tokens);
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(action, fields, cookie)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 409)?.text).toContain("This exam is being prepared");
    // The roster of 9 members is one page of 50: read once.
    expect(bench.lms.membershipCounts.pages - before).toBe(1);
    // Used up: a replay reads nothing.
    const replay = await post(action, fields, cookie);
    expect(replay.status).toBe(410);
    expect(bench.lms.membershipCounts.pages - before).toBe(1);
  });
});

/** Five forms of one exam and course (instructors, or tabs), each from its own launch, posted at once. */
async function fiveFormsAtOnce(): Promise<void> {
  const forms = [];
  for (let i = 0; i < 5; i++) forms.push(await instructorForm());
  expect(new Set(forms.map((f) => f.form)).size).toBe(5);
  const before = bench.lms.membershipCounts.pages;
  const answers = await Promise.all(forms.map((f) => post(f.action, { form: f.form, startAt: startAt(), tzOffsetMin: "0" }, f.cookie)));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
  expect(answers.find((a) => a.status === 409)?.text).toContain("This exam is being prepared");
  expect(bench.lms.membershipCounts.pages - before).toBe(1);
}

describe("one roster read in flight per exam and course", () => {
  it("five forms posted at once read the roster once (in process): one 200, four 409", fiveFormsAtOnce);
});

const redis = await redisOrSkip("the prepare form's roster claim in a Redis fleet");

describe.runIf(redis)("one roster read in flight per exam and course, Redis fleet", () => {
  const prefix = randomPrefix("lti-prepare");
  let fleet: ReturnType<typeof redisFleet>;
  beforeEach(async () => {
    await bench.close();
    fleet = redisFleet({ url: REDIS_URL, secret: SECRET, prefix });
    await fleetReady(fleet);
    store = memoryStore();
    bench = await startLtiBench({}, { router: { store, fleet } });
    bench.lms.setRoster({ size: 8 });
  });
  afterEach(async () => {
    await fleet.close();
    await dropPrefix(prefix);
  });

  it("five forms posted at once read the roster once (the claim is one SET NX): one 200, four 409", fiveFormsAtOnce);
});
