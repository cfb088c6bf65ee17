/**
 * One launch per LMS as it really sends them (the LMS emulator's presets: Canvas, Moodle,
 * Brightspace, Blackboard, Schoology, Open edX; docs/lti.md's table per LMS), through the
 * real HTTP flow with one tool registered with all six: the instructor places the exam
 * with Deep Linking (course binding requires it), then a learner clicks the link: the LMS's
 * frame posts the login, the LMS authorizes, the tool takes the launch, the learner follows
 * the single-use link and lands on the exam page of the platform's custom domain, signed
 * in under the name the LMS sent. With the default options, but one: Open edX sends no
 * context role, so its instructor places exams only with `rolesWithoutContext:
 * "institution-instructor"` (the other five send context roles, which that option never
 * overrides; its learners reach the exam either way). Brightspace, whose deployment hides
 * e-mail (`"email": ""`), gets the refusal at the launch, naming its setting.
 */
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLmsEmulator, LMS_PRESETS, type LmsEmulator, type LmsPreset } from "../../src/emulator/index.js";
import { followToExam, launchFromCourse, placeExam, DASHBOARD_EXAMS_LINKABLE, TOOL_KEY_PEM } from "../support/lti.js";
import { startStack, type Stack } from "../support/stack.js";

const L = "https://purl.imsglobal.org/spec/lti/claim/";
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PRESETS = LMS_PRESETS.filter((p): p is Exclude<LmsPreset, "emulator"> => p !== "emulator");

describe("launches from real LMSs' shapes reach the exam with the default options", () => {
  let stack: Stack;
  const lmss = new Map<LmsPreset, LmsEmulator>();
  beforeAll(async () => {
    for (const preset of PRESETS) lmss.set(preset, await createLmsEmulator({ preset }));
    stack = await startStack({ router: { lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [...lmss.values()].map((lms) => lms.registration()), canLink: DASHBOARD_EXAMS_LINKABLE, rolesWithoutContext: "institution-instructor" } } });
    for (const lms of lmss.values()) lms.registerTool(`${stack.app.url}/oral`);
  });
  afterAll(async () => {
    await stack?.close();
    for (const lms of lmss.values()) await lms.close();
  });

  /**
   * The instructor places a new exam of its own (one per LMS: the router limits how often
   * one student opens one exam), then student-1 clicks it: the launch, and the platform calls it made.
   */
  async function learnerLaunch(preset: LmsPreset) {
    const lms = lmss.get(preset)!;
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const track = stack.track();
    const launched = await launchFromCourse({ lms }, "student-1", linkId);
    return { lms, examId, launched, claims: decodeJwt(launched.idToken) as Record<string, unknown>, track };
  }

  /** Follows the launch to the exam page: one sign-in call, Sam Student signed in on the exam host. */
  async function expectExamPage(launched: Awaited<ReturnType<typeof learnerLaunch>>) {
    const { launch } = launched.launched;
    expect([200, 303], launch.text).toContain(launch.status);
    const { opened, examUrl, page } = await followToExam(launched.launched);
    expect(opened.status, opened.text).toBe(303);
    expect(examUrl!.origin + examUrl!.pathname).toBe(`${stack.emulator.examHost}/exam/${launched.examId}`);
    expect(page!.status).toBe(200);
    expect(page!.text).toContain("Signed in as Sam Student");
    expect(launched.track().filter((r) => r.path === "/students/sign-in-token")).toHaveLength(1);
  }

  it("Canvas: deployment_id (not lti_deployment_id) at login, an id:hash deployment, Platform Storage, iframe, Canvas's claims", async () => {
    const launched = await learnerLaunch("canvas");
    const { login, platformStorage, launch } = launched.launched;
    expect(login.deployment_id).toMatch(/^189:[0-9a-f]{40}$/);
    expect(login).not.toHaveProperty("lti_deployment_id");
    expect(login).toMatchObject({ iss: "https://canvas.instructure.com", lti_storage_target: "post_message_forwarding", canvas_region: "us-east-1" });
    expect(platformStorage).toBe(true);
    expect(launched.claims).toMatchObject({
      iss: "https://canvas.instructure.com", aud: launched.lms.clientId, azp: launched.lms.clientId,
      [`${L}deployment_id`]: login.deployment_id, [`${L}custom`]: { exam_id: launched.examId },
      "https://www.instructure.com/placement": "link_selection",
      [`${L}launch_presentation`]: expect.objectContaining({ document_target: "iframe" }),
    });
    expect(launch.status).toBe(200);
    expect(launch.text).toContain("Open the exam");
    await expectExamPage(launched);
  });

  it("Moodle: aud a string with no azp, 60 s tokens, the tool type id as deployment, short role names", async () => {
    const launched = await learnerLaunch("moodle");
    const { claims } = launched;
    expect(typeof claims.aud).toBe("string");
    expect(claims).not.toHaveProperty("azp");
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
    expect(claims[`${L}deployment_id`]).toBe("3");
    expect(claims[`${L}roles`]).toEqual(["Learner"]);
    expect(launched.launched.platformStorage).toBe(false);
    await expectExamPage(launched);
  });

  it("Blackboard: a UUID deployment and the tool in a new window, straight on to the exam link", async () => {
    const launched = await learnerLaunch("blackboard");
    expect(launched.claims.iss).toBe("https://blackboard.com");
    expect(launched.claims[`${L}deployment_id`]).toMatch(GUID);
    expect(launched.claims[`${L}launch_presentation`]).toMatchObject({ document_target: "window" });
    expect(launched.launched.launch.status).toBe(303);
    await expectExamPage(launched);
  });

  it("Schoology: aud an array with the one client id and no azp", async () => {
    const launched = await learnerLaunch("schoology");
    expect(launched.claims.aud).toEqual([launched.lms.clientId]);
    expect(launched.claims).not.toHaveProperty("azp");
    await expectExamPage(launched);
  });

  it("Open edX: name only (no given or family name) and no context role: the name is split, the learner reaches the exam", async () => {
    const launched = await learnerLaunch("openedx");
    expect(launched.claims).toMatchObject({ name: "Sam Student" });
    expect(launched.claims).not.toHaveProperty("given_name");
    expect(launched.claims).not.toHaveProperty("family_name");
    expect((launched.claims[`${L}roles`] as string[]).some((r) => r.includes("membership"))).toBe(false);
    await expectExamPage(launched);
  });

  it("Brightspace: \"email\": \"\" is a hidden e-mail: refused at the launch, naming Brightspace's setting, with no platform call", async () => {
    const launched = await learnerLaunch("brightspace");
    const { claims } = launched;
    expect(claims.email).toBe("");
    expect(claims[`${L}deployment_id`]).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(claims.sub).toMatch(/^[0-9a-f-]{36}_\d+$/);
    const { launch } = launched.launched;
    expect(launch.status).toBe(400);
    expect(launch.text).toContain("For your LMS administrator");
    expect(launch.text).toContain("Brightspace");
    expect(launch.text).not.toContain("/lti/open/");
    expect(stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1)?.obj.check).toBe("email_missing");
    expect(launched.track()).toEqual([]);
  });
});
