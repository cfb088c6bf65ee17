/**
 * Launches as real LMSs send them (docs/lti.md, LTI.md §8), over HTTP with a forging LMS:
 * `aud` shapes, deployment id shapes, Canvas's login `deployment_id`, Moodle's 60 s tokens
 * with a clock ±30 s off, empty roles, unknown claims, large tokens; the student from
 * `name` alone; every missing field refused at `POST /lti/launch` naming the LMS's
 * setting; `lti.email` and `lti.emailStandIn`; and the course role from context roles only.
 */
import { createHash } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, oralAssessments } from "../../src/index.js";
import { isInstructorRole } from "../../src/lti/shared/claims.js";
import { namesOf } from "../../src/lti/launch/student.js";
import { readLaunchClaims } from "../../src/lti/launch/typed-launch.js";
import { TEST_KEY } from "../support/keys.js";
import { C, refusedDuring, ROLE, startForge, type Forge, type ForgeLaunch } from "../support/lti-forge.js";
import { linkOf, startLtiBench, TOOL_KEY_PEM, type LtiBench } from "../support/lti.js";

/** The names a launch with these claims signs in with (read once, then split). */
const namesFromClaims = (claims: Record<string, unknown>) => namesOf(readLaunchClaims(claims).student);

const SHAPES = { moodle: "3", canvas: "189:8865aa05b4b79b64a91a86042e43af5ea8ae79eb", brightspace: "6F1D0B0C-0E4B-4B8E-9C1A-2B3C4D5E6F70", blackboard: "e3b0c442-98fc-4c14-9afb-f4c8996fb924" };

let users = 0;
/**
 * The launch, then its link followed: the sign-in call's student. Each call is another
 * learner (`sub` learner-N, e-mail learner-N@forge.example unless the claims say), as the
 * router limits one student's launches.
 */
/** One exam per (bench, deployment) other than the forge's own, its course linked (course binding: a deployment is part of the course). */
const examsByDeployment = new Map<string, Promise<string>>();
function examFor(bench: LtiBench, forge: Forge, f: ForgeLaunch): Promise<string> {
  const deployment = f.login?.lti_deployment_id ?? f.login?.deployment_id ?? forge.deploymentId;
  if (deployment === forge.deploymentId) return Promise.resolve(bench.examId);
  const key = `${bench.stack.app.url} ${deployment}`;
  let exam = examsByDeployment.get(key);
  if (!exam) {
    exam = bench.stack.seedExam().then(async ({ examId }) => { await forge.linkCourse(bench, examId, deployment); return examId; });
    examsByDeployment.set(key, exam);
  }
  return exam;
}

async function signedIn(bench: LtiBench, forge: Forge, f: ForgeLaunch = {}): Promise<Record<string, unknown>> {
  const examId = await examFor(bench, forge, f);
  const track = bench.stack.track();
  users += 1;
  const user = { sub: `learner-${users}`, email: `learner-${users}@forge.example` };
  const claims = (now: number) => ({ ...user, ...(typeof f.claims === "function" ? f.claims(now) : f.claims) });
  const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, examId, { ...f, claims }));
  expect(checks, result.text).toEqual([]);
  expect(result.status).toBe(200);
  await request(bench.stack.app.url).get(linkOf(result.text)!).expect(303);
  const signIn = track().find((r) => r.path.includes("sign-in-token"));
  return signIn!.body as Record<string, unknown>;
}

async function refused(bench: LtiBench, forge: Forge, f: ForgeLaunch): Promise<{ check: string; text: string; status: number }> {
  const track = bench.stack.track();
  const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, f));
  expect(track()).toEqual([]);
  expect(checks).toHaveLength(1);
  return { check: checks[0]!, text: result.text, status: result.status };
}

const isExam = (text: string) => text.includes("Open the exam") && linkOf(text) !== undefined;

describe("LTI claims as LMSs send them (default options)", () => {
  let forge: Forge;
  let bench: LtiBench;
  beforeAll(async () => {
    forge = await startForge();
    bench = await startLtiBench((lms) => ({ registrations: [lms.registration(), forge.registration([forge.deploymentId, ...Object.values(SHAPES)])] }));
    await forge.linkCourse(bench, bench.examId);
  });
  afterAll(async () => { await bench?.close(); await forge?.close(); });

  it("accepts aud as a one-entry array without azp, and several entries with azp = client id", async () => {
    expect(await signedIn(bench, forge, { claims: { aud: [forge.clientId] } })).toMatchObject({ firstName: "Fay" });
    expect(await signedIn(bench, forge, { claims: { aud: [forge.clientId, "another"], azp: forge.clientId } })).toMatchObject({ firstName: "Fay" });
  });

  it.each(Object.entries(SHAPES))("accepts a %s-shaped deployment id", async (_lms, id) => {
    await signedIn(bench, forge, { claims: { [C.deploymentId]: id }, login: { lti_deployment_id: id } });
  });

  it("reads Canvas's login deployment_id as lti_deployment_id", async () => {
    const canvas = { lti_deployment_id: undefined, deployment_id: SHAPES.canvas };
    await signedIn(bench, forge, { claims: { [C.deploymentId]: SHAPES.canvas }, login: canvas });
    // Read, not ignored: a token from another (registered) deployment no longer matches the login.
    expect((await refused(bench, forge, { login: canvas })).check).toBe("deployment_id_login_mismatch");
  });

  it("accepts Moodle's 60 s tokens from a clock 30 s ahead or behind, with short role names", async () => {
    await signedIn(bench, forge, { claims: (now) => ({ iat: now + 30, exp: now + 90, [C.roles]: ["Learner"] }) });
    await signedIn(bench, forge, { claims: (now) => ({ iat: now - 30, exp: now + 30, [C.roles]: ["Learner"] }) });
  });

  it("accepts an empty roles array (a learner) and ignores claims it does not know", async () => {
    await signedIn(bench, forge, { claims: { [C.roles]: [] } });
    await signedIn(bench, forge, { claims: { "https://lms.example/claim/whatever": { a: [1, 2] }, foo: "bar", [C.toolPlatform]: { guid: "x", product_family_code: "unknown" } } });
  });

  it("reads an id_token of 60 KB (a link with many custom parameters)", async () => {
    const custom: Record<string, string> = { exam_id: bench.examId };
    for (let i = 0; i < 400; i += 1) custom[`param_${i}`] = "x".repeat(100);
    const { result } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.custom]: custom }, idToken: (t) => { expect(t.length).toBeGreaterThan(55_000); expect(t.length).toBeLessThan(65_536); return t; } }));
    expect(result.status).toBe(200);
  });

  it("signs in a learner whose LMS sends only name (Open edX), split into first and last name", async () => {
    expect(await signedIn(bench, forge, { claims: { given_name: undefined, family_name: undefined, name: "  Ludwig   van Beethoven " } }))
      .toMatchObject({ firstName: "Ludwig", lastName: "van Beethoven", email: expect.stringMatching(/^learner-\d+@forge\.example$/) });
  });

  it("refuses at the launch an e-mail Brightspace sends empty, naming Brightspace's deployment security settings", async () => {
    const r = await refused(bench, forge, { claims: { email: "", "http://www.brightspace.com": { tenant_id: "t", user_id: 1 } } });
    expect(r).toMatchObject({ check: "email_missing", status: 400 });
    expect(r.text).toContain("Security Settings");
    expect(r.text).not.toContain("Privacy Level");
    expect(r.text).toContain("lti.email");
  });

  it("names the setting of the LMS the launch came from (Canvas, Moodle, Blackboard, Schoology), else every LMS's", async () => {
    const canvas = await refused(bench, forge, { claims: { email: undefined, "https://www.instructure.com/placement": "link_selection" } });
    expect(canvas.text).toContain("Privacy Level");
    expect(canvas.text).not.toContain("Share launcher");
    const by = (code: string) => refused(bench, forge, { claims: { email: undefined, [C.toolPlatform]: { guid: "g", product_family_code: code } } });
    expect((await by("moodle")).text).toContain("Share launcher&#39;s email with tool");
    expect((await by("BlackboardLearn")).text).toContain("User Fields to Send");
    expect((await by("schoology")).text).toContain("Send Name and Email/Username");
    const any = (await refused(bench, forge, { claims: { email: undefined } })).text;
    for (const setting of ["Privacy Level", "Share launcher", "Security Settings", "User Fields to Send", "Send Name and Email/Username"]) expect(any).toContain(setting);
  });

  it("refuses at the launch a learner with no name at all, naming the fields", async () => {
    const r = await refused(bench, forge, { claims: { given_name: undefined, family_name: undefined, name: undefined } });
    expect(r).toMatchObject({ check: "student_fields_missing", status: 400 });
    expect(r.text).toContain("first name, last name");
  });

  it("refuses at the launch an e-mail the platform would not take", async () => {
    expect((await refused(bench, forge, { claims: { email: "not an address" } })).check).toBe("student_fields_invalid");
  });

  it("gives a course Learner who is an institution Instructor the exam, not the instructor page", async () => {
    const { result } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.roles]: [ROLE.learner, ROLE.institutionInstructor, ROLE.systemAdministrator] } }));
    expect(isExam(result.text)).toBe(true);
  });

  it("gives context staff roles the instructor page: Instructor, its TeachingAssistant sub-role, short forms", async () => {
    for (const roles of [[ROLE.instructor], [ROLE.teachingAssistant], ["Instructor"], ["TeachingAssistant"], ["ContentDeveloper"], [ROLE.learner, ROLE.teachingAssistant]]) {
      const { result } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.roles]: roles } }));
      expect(result.status, roles.join()).toBe(200);
      expect(isExam(result.text), roles.join()).toBe(false);
    }
  });

  it("treats a launch with institution roles only (Open edX) as a learner by default", async () => {
    const { result } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.roles]: [ROLE.institutionInstructor] } }));
    expect(isExam(result.text)).toBe(true);
  });
});

describe("LTI options for what the LMS does not send", () => {
  let forge: Forge;
  let lookup: LtiBench;
  let standIn: LtiBench;
  const asked: unknown[] = [];
  beforeAll(async () => {
    forge = await startForge();
    lookup = await startLtiBench((lms) => ({
      registrations: [lms.registration(), forge.registration()],
      email: async (claims, context) => {
        asked.push({ sub: claims.sub, context });
        if (claims.sub === "throws") throw new Error("directory down");
        return claims.sub === "unknown" ? undefined : `${String(claims.sub)}@directory.example`;
      },
    }));
    standIn = await startLtiBench((lms) => ({ registrations: [lms.registration(), forge.registration()], emailStandIn: { domain: "LMS-Users.example.edu" }, rolesWithoutContext: "institution-instructor" }));
    await forge.linkCourse(lookup, lookup.examId);
    await forge.linkCourse(standIn, standIn.examId);
  });
  afterAll(async () => { await lookup?.close(); await standIn?.close(); await forge?.close(); });

  it("lti.email supplies the e-mail the LMS hid, asked with the claims and the organization", async () => {
    expect(await signedIn(lookup, forge, { claims: { email: undefined, sub: "dir-user-1" } })).toMatchObject({ email: "dir-user-1@directory.example", firstName: "Fay" });
    expect(asked.at(-1)).toEqual({ sub: "dir-user-1", context: { organization: undefined } });
  });

  it("lti.email is not asked when the launch carries an e-mail", async () => {
    const before = asked.length;
    expect(await signedIn(lookup, forge, { claims: { email: "fay@forge.example" } })).toMatchObject({ email: "fay@forge.example" });
    expect(asked).toHaveLength(before);
  });

  it("a launch lti.email knows no e-mail for is refused at the launch; a failing lookup is a 503 page", async () => {
    expect((await refused(lookup, forge, { claims: { email: undefined, sub: "unknown" } })).check).toBe("email_missing");
    const failed = await refused(lookup, forge, { claims: { email: undefined, sub: "throws" } });
    expect(failed).toMatchObject({ check: "email_lookup", status: 503 });
    expect(failed.text).not.toContain("directory down");
  });

  it("lti.emailStandIn signs in with lti-<issuer hash>-<sub>@<domain>", async () => {
    const tag = createHash("sha256").update(forge.issuer).digest("hex").slice(0, 8);
    expect(await signedIn(standIn, forge, { claims: { email: "", sub: "Stand-In_1" } })).toMatchObject({ email: `lti-${tag}-stand-in_1@lms-users.example.edu` });
    const odd = createHash("sha256").update("Odd/Sub 1").digest("hex").slice(0, 24);
    expect(await signedIn(standIn, forge, { claims: { email: undefined, sub: "Odd/Sub 1" } })).toMatchObject({ email: `lti-${tag}-h-${odd}@lms-users.example.edu` });
    expect(standIn.stack.logger.lines.some((l) => l.obj.event === "lti_email_stand_in")).toBe(true);
  });

  it("rolesWithoutContext: \"institution-instructor\" gives an institution Instructor without context roles the instructor page, never a course Learner", async () => {
    const open = (roles: string[]) => refusedDuring(standIn, () => forge.launch(standIn, standIn.examId, { claims: { [C.roles]: roles } }));
    expect(isExam((await open([ROLE.institutionInstructor])).result.text)).toBe(false);
    expect(isExam((await open([ROLE.institutionStudent])).result.text)).toBe(true);
    expect(isExam((await open([ROLE.learner, ROLE.institutionInstructor])).result.text)).toBe(true);
  });

  it("lists mistakes of lti.email, lti.emailStandIn and lti.rolesWithoutContext in the ConfigurationError", () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    try {
      oralAssessments({ platform, canLaunch: "any-signed-in-user", lti: {
        keys: [{ kid: "k", privateKey: TOOL_KEY_PEM }], email: "yes" as never, emailStandIn: { domain: "no domain" }, rolesWithoutContext: "everyone" as never,
      } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      expect([...(error as ConfigurationError).problems].map((p) => p.option).sort()).toEqual(["lti.email", "lti.emailStandIn", "lti.rolesWithoutContext"]);
    }
  });
});

describe("the name split rule (namesFromClaims)", () => {
  it.each([
    ["given_name and family_name win", { given_name: "Ana", family_name: "Lima", name: "X Y" }, "Ana", "Lima"],
    ["first word, then the rest (particles stay with the last name)", { name: "Maria de la Cruz" }, "Maria", "de la Cruz"],
    ["runs of spaces, tabs and ideographic spaces collapse", { name: " Ana \t  Maria\u3000Lima " }, "Ana", "Maria Lima"],
    ["one word is both names", { name: "Sukarno" }, "Sukarno", "Sukarno"],
    ["Last, First", { name: "Lima, Ana" }, "Ana", "Lima"],
    ["Han / Kana with a space: family name first", { name: "山田 太郎" }, "太郎", "山田"],
    ["Hangul with a space: family name first", { name: "김 민준" }, "민준", "김"],
    ["CJK with no space: one word", { name: "王小明" }, "王小明", "王小明"],
    ["Arabic: first word, then the rest", { name: "محمد بن سلمان" }, "محمد", "بن سلمان"],
    ["given_name only: the rest of name is the last name", { given_name: "Ana", name: "Ana Maria Lima" }, "Ana", "Maria Lima"],
    ["given_name only, no name: both", { given_name: "Ana" }, "Ana", "Ana"],
    ["an empty or blank name is missing", { given_name: " ", name: "" }, undefined, undefined],
  ])("%s", (_what, claims, firstName, lastName) => {
    expect(namesFromClaims(claims)).toEqual({ firstName, lastName });
  });

  it("cuts each name to the platform's 100 characters", () => {
    const { firstName, lastName } = namesFromClaims({ name: `${"A".repeat(150)} ${"B".repeat(150)}` });
    expect([firstName!.length, lastName!.length]).toEqual([100, 100]);
  });
});

describe("the course role (isInstructorRole)", () => {
  it("reads membership URIs, sub-roles, LTI 1.1 URNs and short names; never institution or system roles beside a context role", () => {
    expect(isInstructorRole(["urn:lti:role:ims/lis/Instructor"])).toBe(true);
    expect(isInstructorRole(["http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator"])).toBe(true);
    expect(isInstructorRole(["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor", ROLE.institutionInstructor])).toBe(false);
    expect(isInstructorRole(["urn:lti:instrole:ims/lis/Instructor"])).toBe(false);
    expect(isInstructorRole([ROLE.systemAdministrator], "institution-instructor")).toBe(false);
  });
});
