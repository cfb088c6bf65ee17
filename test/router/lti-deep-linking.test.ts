/**
 * Deep Linking 2.0 and the instructor page, over real HTTP with the LMS emulator: an
 * instructor's deep-linking request gets a picker of the store's exams, the choice is
 * single use and answers a form posting a JWT that verifies with the tool's published key
 * and carries every claim of the response; the LMS emulator's return endpoint verifies it
 * too and places the exam, which a student then launches. An instructor's launch of a
 * link names the exam, its class and its status.
 */
import request from "supertest";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formFields, linkCourse, linkOf, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

const L = "https://purl.imsglobal.org/spec/lti/claim/";
const DL = "https://purl.imsglobal.org/spec/lti-dl/claim/";

/** The picker's hidden pick id and its choices (button name → values). */
function pickerOf(html: string): { action: string; pick: string; choices: { name: string; value: string }[] } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? "";
  const pick = /name="pick" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const choices = [...html.matchAll(/<button name="(examId|roleplayId)" value="([^"]+)">/g)].map((m) => ({ name: m[1]!, value: m[2]! }));
  return { action, pick, choices };
}

describe("LTI Deep Linking and the instructor page", () => {
  let bench: LtiBench;
  let tool: string;
  beforeAll(async () => {
    bench = await startLtiBench();
    tool = bench.stack.app.url;
  });
  afterAll(async () => { await bench?.close(); });

  async function openPicker(options: Parameters<LtiBench["lms"]["openDeepLinking"]>[0] = {}, user = "instructor-1", on = bench) {
    const dl = on.lms.openDeepLinking(options);
    return (await walkLaunch(on, user, { linkId: dl })).launch;
  }

  it("answers an instructor's deep-linking request with a picker of the store's exams, with the LTI headers", async () => {
    const track = bench.stack.track();
    const launch = await openPicker();
    expect(launch.status).toBe(200);
    const picker = pickerOf(launch.text);
    expect(picker.action).toBe(`${tool}/oral/lti/deep-link`);
    expect(picker.pick).toMatch(/^[\w-]{32}$/);
    expect(picker.choices).toEqual([{ name: "examId", value: bench.examId }]);
    expect(launch.text).toContain("Cells");
    expect(launch.text).toContain("A new class and exam for this course");
    expect(launch.headers["content-security-policy"]).toContain(`frame-ancestors ${bench.lms.url}`);
    expect(launch.headers["cache-control"]).toBe("no-store");
    expect(track()).toEqual([]);
  });

  it("answers the choice with a form posting a JWT, signed by the tool's key, with every claim; the choice is single use", async () => {
    const picker = pickerOf((await openPicker({ data: "opaque&<data>" })).text);
    const res = await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, examId: bench.examId }).expect(200);
    expect(res.text).toContain(`action="${bench.lms.url}/deep-link-return"`);
    expect(res.headers["content-security-policy"]).toContain(`form-action 'self' ${bench.lms.url}`);
    const jwt = formFields(res.text).JWT!;
    expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: "RS256", kid: "tool-1" });
    const jwks = (await request(tool).get("/oral/lti/jwks.json").expect(200)).body;
    const { payload } = await jwtVerify(jwt, createLocalJWKSet(jwks), { algorithms: ["RS256"], issuer: bench.lms.clientId, audience: bench.lms.issuer });
    expect(payload.nonce).toMatch(/^[\w-]{32}$/);
    expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
    expect(payload).toMatchObject({
      [`${L}deployment_id`]: bench.lms.deploymentId, [`${L}message_type`]: "LtiDeepLinkingResponse", [`${L}version`]: "1.3.0",
      [`${DL}data`]: "opaque&<data>",
    });
    const items = payload[`${DL}content_items`] as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: "ltiResourceLink", title: "Cells", url: `${tool}/oral/lti/launch`, custom: { exam_id: bench.examId }, window: { targetName: "_blank" } });
    expect(items[0]!.text).toContain("Autumn");
    // The same choice again: the picker was taken.
    const again = await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, examId: bench.examId });
    expect(again.status).toBe(410);
    expect(again.text).not.toContain("JWT");
  });

  it("places the exam in the LMS (whose return endpoint verifies the JWT against jwks.json), and a student launches it", async () => {
    const picker = pickerOf((await openPicker({ targets: ["iframe"] })).text);
    const res = await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, examId: bench.examId }).expect(200);
    const returned = await request(bench.lms.url).post("/deep-link-return").type("form").send({ JWT: formFields(res.text).JWT! });
    expect(returned.status).toBe(200);
    const last = bench.lms.deepLinkReturns.at(-1)!;
    if (!last.ok) throw new Error(last.error);
    expect(last.links).toHaveLength(1);
    expect(last.links[0]).toMatchObject({ title: "Cells", custom: { exam_id: bench.examId }, documentTarget: "iframe" });
    const { launch } = await walkLaunch(bench, "student-2", { linkId: last.links[0]!.id });
    expect(launch.status).toBe(200);
    const opened = await request(tool).get(linkOf(launch.text)!).expect(303);
    expect(opened.headers.location).toContain(`/exam/${bench.examId}?__clerk_ticket=`);
  });

  it("refuses a JWT the LMS did not ask for: the return endpoint checks the signature, the data and the audience", async () => {
    const picker = pickerOf((await openPicker()).text);
    const res = await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, examId: bench.examId }).expect(200);
    const jwt = formFields(res.text).JWT!;
    const [h, p, s] = jwt.split(".");
    const forged = `${h}.${p}.${s!.slice(0, -4)}AAAA`;
    await request(bench.lms.url).post("/deep-link-return").type("form").send({ JWT: forged }).expect(400);
    expect(bench.lms.deepLinkReturns.at(-1)).toMatchObject({ ok: false });
  });

  it("keeps the picker when the choice names no exam of the organization, so the instructor may choose again", async () => {
    const picker = pickerOf((await openPicker()).text);
    const wrong = await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, examId: "not-an-exam" });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("examId");
    const asRoleplay = await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, roleplayId: bench.examId });
    expect(asRoleplay.status).toBe(400);
    await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: picker.pick, examId: bench.examId }).expect(200);
    await request(tool).post("/oral/lti/deep-link").type("form").send({ pick: "made-up-pick", examId: bench.examId }).expect(410);
  });

  it("refuses a placement that does not accept LTI resource links, or no window or frame, with a page for the administrator", async () => {
    const types = await openPicker({ acceptTypes: ["link", "html"] });
    expect(types.status).toBe(400);
    expect(types.text).toContain("ltiResourceLink");
    expect(types.text).toContain("For your LMS administrator");
    expect(bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1)?.obj.check).toBe("accept_types");
    const targets = await openPicker({ targets: ["embed"] });
    expect(targets.status).toBe(400);
    expect(bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1)?.obj.check).toBe("accept_presentation_document_targets");
  });

  it("refuses a deep-linking request from a learner", async () => {
    const launch = await openPicker({}, "student-1");
    expect(launch.status).toBe(403);
    expect(launch.text).not.toContain('name="pick"');
  });

  it("lists the classes linked to this LMS course first, and hides a class linked to another course", async () => {
    // A bench of its own: the exams it adds would be choices in the other tests' pickers.
    const own = await startLtiBench();
    try {
      await linkCourse(own); // Autumn (own.examId's class) is now course-1's
      // Another LMS course, linked to nothing yet.
      own.lms.setClaims({ [`${L}context`]: { id: "course-ordering", title: "Ordering" } });
      const ines = await own.stack.login("ines");
      const course = (await ines.post("/oral/courses").send({ name: "Chemistry" }).expect(201)).body.data._id;
      const exams: string[] = [];
      for (const name of ["Spring", "Summer"]) {
        const cls = (await ines.post(`/oral/courses/${course}/classes`).send({ name, startDate: "2027-01-10", endDate: "2027-05-30" }).expect(201)).body.data._id;
        exams.push((await ines.post("/oral/oral-assessments").send({ name: `Acids ${name}`, classId: cls, questions: [{ text: "What is an acid?" }] }).expect(201)).body.data._id);
      }
      // Autumn (own.examId's class) is course-1's: canLink's default hides it here.
      const before = pickerOf((await openPicker({}, "instructor-1", own)).text);
      expect(before.choices.map((c) => c.value)).toEqual(exams);
      await request(own.stack.app.url).post("/oral/lti/deep-link").type("form").send({ pick: before.pick, examId: exams[1] }).expect(200);
      const after = await openPicker({}, "instructor-1", own);
      expect(pickerOf(after.text).choices.map((c) => c.value)).toEqual([exams[1], exams[0]]);
      expect(after.text).toContain("this course's class");
    } finally {
      await own.close();
    }
  });

  it("shows an instructor's launch of a link: the exam, its class, its student link status and the preparation status link", async () => {
    const track = bench.stack.track();
    const { launch } = await walkLaunch(bench, "instructor-1");
    expect(launch.status).toBe(200);
    expect(launch.text).toContain("<h1>Cells</h1>");
    expect(launch.text).toMatch(/id="class">Autumn</);
    expect(launch.text).toMatch(/id="status">Ready/);
    expect(launch.text).toContain(`href="${tool}/oral/oral-assessments/${bench.examId}/prepare"`);
    const unknown = bench.lms.addResourceLink({ title: "Gone", custom: { exam_id: "unknown-exam" } });
    const gone = (await walkLaunch(bench, "instructor-1", { linkId: unknown.id })).launch;
    expect(gone.text).toContain("Exam not found");
    expect(track()).toEqual([]);
  });
});
