/**
 * Launch and login checks pinned at their exact bounds, each next to its control, over
 * real HTTP with a forging LMS (test/support/lti-forge.ts): a bound that moves by one
 * character, a `target_link_uri` that only starts like the tool's, a course key missing
 * its deployment. Each rule's refusal names its own check; each control passes it.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { C, refusedDuring, ROLE, startForge, startTwoDeploymentForge, type Forge } from "../support/lti-forge.js";
import { formFields, linkCourse, postLaunch, startLtiBench, type LtiBench } from "../support/lti.js";

describe("LTI checks pinned at their bounds (static registration)", () => {
  let forge: Forge;
  let bench: LtiBench;
  /** An exam whose class is linked to the forge's course under its second deployment only. */
  let secondExam: string;
  beforeAll(async () => {
    ({ forge, bench, secondExam } = await startTwoDeploymentForge());
  });
  afterAll(async () => { await bench?.close(); await forge?.close(); });

  it("refuses a sub of 256 characters as sub, and lets one of 255 past that check (LTI Core §5.3.6)", async () => {
    // 255 characters pass the launch's sub check (what the student record then allows is another check's).
    const at255 = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { sub: "s".repeat(255) } }));
    expect(at255.checks).not.toContain("sub");
    const track = bench.stack.track();
    const at256 = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { sub: "s".repeat(256) } }));
    expect(at256.checks).toEqual(["sub"]);
    expect(at256.result.status).toBe(400);
    expect(track()).toEqual([]);
  });

  it("refuses a target_link_uri that only starts with the tool's launch URL; its own URL with a query passes", async () => {
    const launchUrl = `${bench.stack.app.url}/oral/lti/launch`;
    const withQuery = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.targetLinkUri]: `${launchUrl}?exam=1` } }));
    expect(withQuery.checks).toEqual([]);
    expect(withQuery.result.text).toContain("Open the exam");
    for (const target of [`${launchUrl}-elsewhere`, `${launchUrl}/../../../elsewhere`, `${launchUrl}.evil.example/`, `${launchUrl}#x`]) {
      const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.targetLinkUri]: target } }));
      expect(checks, target).toEqual(["target_link_uri"]);
      expect(result.status).toBe(400);
    }
  });

  it("refuses a login whose lti_deployment_id is 256 characters (LTI Core §3.1.3), keeping no state; 255 is a login", async () => {
    const login = (deployment: string) => request(bench.stack.app.url).get(`/oral/lti/login?${new URLSearchParams({
      iss: forge.issuer, client_id: forge.clientId, login_hint: "forge-user-1", target_link_uri: `${bench.stack.app.url}/oral/lti/launch`, lti_deployment_id: deployment,
    })}`);
    expect((await login("d".repeat(255))).status).toBe(302);
    const { result, checks } = await refusedDuring(bench, () => login("d".repeat(256)));
    expect(result.status).toBe(400);
    expect(checks).toEqual(["login_parameters"]);
    expect(result.headers["set-cookie"]).toBeUndefined();
  });

  it("an LMS course is (issuer, client id, deployment, context): a class linked to the course under another deployment is another course's for the instructor", async () => {
    // secondExam's class is linked to context forge-course under forge-deployment-2 only.
    const instructor = { sub: "forge-instructor", [C.roles]: [ROLE.instructor] };
    const from = bench.stack.logger.lines.length;
    const { result } = await refusedDuring(bench, () => forge.launch(bench, secondExam, { claims: instructor }));
    // Another course's class: the copy offer, not "Ready".
    expect(result.text).not.toMatch(/id="status">Ready/);
    expect(bench.stack.logger.lines.slice(from).find((l) => l.obj.event === "lti_launch")?.obj.status).toBe("offer");
    // Its learners under the first deployment are refused, as the instructor was told.
    const learner = await refusedDuring(bench, () => forge.launch(bench, secondExam));
    expect(learner.checks).toEqual(["course_binding"]);
    // The control: under the deployment it was linked in, the same instructor launch is Ready.
    const linked = await refusedDuring(bench, () => forge.launch(bench, secondExam, { claims: { ...instructor, [C.deploymentId]: "forge-deployment-2" }, login: { lti_deployment_id: "forge-deployment-2" } }));
    expect(linked.checks).toEqual([]);
    expect(linked.result.text).toMatch(/id="status">Ready/);
  });
});

describe("LTI deployment ids of a stored registration that accepts new ones", () => {
  let forge: Forge;
  let bench: LtiBench;
  beforeAll(async () => {
    forge = await startForge();
    const store = memoryStore();
    const { deployments: _, ...registration } = forge.registration();
    await store.putLtiRegistration({ ...registration, active: true, acceptNewDeployments: true, data: {}, createdAt: new Date().toISOString() });
    bench = await startLtiBench({ registrations: [] }, { router: { store } });
  });
  afterAll(async () => { await bench?.close(); await forge?.close(); });

  it("takes an unknown deployment id of 255 characters, and refuses one of 256 as deployment_id", async () => {
    // The login names no deployment (a 256-character one would be refused there): only the launch's bound can refuse it.
    const at255 = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.deploymentId]: "n".repeat(255) }, login: { lti_deployment_id: undefined } }));
    // Accepted as a deployment: the launch goes on to course binding (the exam is placed in no course).
    expect(at255.checks).toEqual(["course_binding"]);
    const track = bench.stack.track();
    const at256 = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.deploymentId]: "n".repeat(256) }, login: { lti_deployment_id: undefined } }));
    expect(at256.checks).toEqual(["deployment_id"]);
    expect(at256.result.status).toBe(400);
    expect(track()).toEqual([]);
  });
});

/** A login offering Platform Storage, as the emulator's course page sends it, and the LMS's auth answer. */
async function storageLogin(bench: LtiBench) {
  const toolUrl = new URL(bench.lms.loginUrl("student-1", bench.linkId, { lti_storage_target: "post_message_forwarding" }));
  const login = await request(toolUrl.origin).get(toolUrl.pathname + toolUrl.search).expect(200);
  const next = /id="next" href="([^"]+)"/.exec(login.text)![1]!.replace(/&amp;/g, "&").replace(/&#38;/g, "&");
  const auth = new URL(next);
  const fields = formFields((await request(auth.origin).get(auth.pathname + auth.search).expect(200)).text);
  const storedValue = /"value":"([\w-]+)"/.exec(login.text)![1]!;
  // No cookie comes back (a frame without third-party cookies): the check page, with its continuation.
  const check = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state! }).expect(200);
  const hidden = formFields(check.text);
  expect(hidden.continuation).toMatch(/^[\w-]{32}$/);
  return { back: { id_token: hidden.id_token!, state: hidden.state!, continuation: hidden.continuation! }, storedValue };
}

describe("LTI Platform Storage check page, pinned", () => {
  let bench: LtiBench;
  beforeAll(async () => {
    bench = await startLtiBench();
    await linkCourse(bench);
  });
  afterAll(async () => { await bench?.close(); });

  const postBack = (fields: Record<string, string>, site: string) =>
    refusedDuring(bench, () => request(bench.stack.app.url).post("/oral/lti/launch").type("form").set("Sec-Fetch-Site", site).send(fields));

  it("refuses a sealed state that was edited (its ciphertext, its tag) or cut, even with the login's cookie; the state as sent opens the exam", async () => {
    const walk = async () => {
      const toolUrl = new URL(bench.lms.loginUrl("student-1", bench.linkId));
      const login = await request(toolUrl.origin).get(toolUrl.pathname + toolUrl.search).expect(302);
      const cookie = (login.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
      const auth = new URL(login.headers.location!);
      const fields = formFields((await request(auth.origin).get(auth.pathname + auth.search).expect(200)).text);
      expect(fields.state).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
      return { cookie, idToken: fields.id_token!, state: fields.state! };
    };
    const sound = await walk();
    const control = await refusedDuring(bench, () => postLaunch(bench, { id_token: sound.idToken, state: sound.state }, sound.cookie));
    expect(control.checks).toEqual([]);
    expect(control.result.text).toContain("Open the exam");
    // One base64url character of a part swapped for another.
    const edit = (s: string, part: number) => s.split(".").map((p, i) => (i === part ? `${p[0] === "A" ? "B" : "A"}${p.slice(1)}` : p)).join(".");
    for (const state of [(s: string) => edit(s, 3), (s: string) => edit(s, 4), (s: string) => s.split(".").slice(0, 4).join(".")]) {
      const walked = await walk();
      const track = bench.stack.track();
      const { result, checks } = await refusedDuring(bench, () => postLaunch(bench, { id_token: walked.idToken, state: state(walked.state) }, walked.cookie));
      expect(checks).toEqual(["state"]);
      expect(result.status).toBe(400);
      expect(track()).toEqual([]);
    }
  });

  it("takes the continuation only with the value the login stored: another browser's Platform Storage (empty, or another value) is state_binding", async () => {
    for (const value of ["", "A".repeat(32)]) {
      const { back } = await storageLogin(bench);
      const track = bench.stack.track();
      const { result, checks } = await postBack({ ...back, platform_value: value }, "same-origin");
      expect(checks).toEqual(["state_binding"]);
      expect(result.status).toBe(401);
      expect(result.text).not.toContain("Open the exam");
      expect(track()).toEqual([]);
    }
    // The control: the value the login stored opens the exam.
    const { back, storedValue } = await storageLogin(bench);
    const own = await postBack({ ...back, platform_value: storedValue }, "same-origin");
    expect(own.checks).toEqual([]);
    expect(own.result.text).toContain("Open the exam");
  });

  it("takes the continuation only from a same-origin post: same-site and user-initiated (none) posts are refused", async () => {
    const { back, storedValue } = await storageLogin(bench);
    const fields = { ...back, platform_value: storedValue };
    for (const site of ["same-site", "none"]) {
      const { result, checks } = await postBack(fields, site);
      expect(checks, site).toEqual(["state_binding"]);
      expect(result.status).toBe(401);
    }
    // Refused posts spend nothing: the check page's own post still goes through.
    const own = await postBack(fields, "same-origin");
    expect(own.checks).toEqual([]);
    expect(own.result.text).toContain("Open the exam");
  });
});

describe("LTI registration deactivated between login and launch", () => {
  let forge: Forge;
  let bench: LtiBench;
  let store: ReturnType<typeof memoryStore>;
  beforeAll(async () => {
    forge = await startForge();
    store = memoryStore();
    const { deployments: _, ...registration } = forge.registration();
    await store.putLtiRegistration({ ...registration, active: true, acceptNewDeployments: false, data: {}, createdAt: new Date().toISOString() });
    await store.putLtiDeployment(forge.issuer, forge.clientId, { id: forge.deploymentId });
    bench = await startLtiBench({ registrations: [] }, { router: { store } });
    await forge.linkCourse(bench, bench.examId);
  });
  afterAll(async () => { await bench?.close(); await forge?.close(); });

  it("refuses the launch of a login made while the registration was active, once the tool has read the deactivation", async () => {
    const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, {
      // The login runs first (active); the registration is deactivated before the token is posted.
      beforePost: async () => {
        await store.setLtiRegistrationActive(forge.issuer, forge.clientId, false);
        // The tool reads stored registrations at most every 5 s (registration-source.ts, cacheMs): wait past it.
        await new Promise((resolve) => setTimeout(resolve, 5_500));
      },
    }));
    expect(checks).toEqual(["registration_inactive"]);
    expect(result.status).toBe(403);
  });
});

describe("LTI deployment naming an organization the app does not know", () => {
  let forge: Forge;
  let bench: LtiBench;
  beforeAll(async () => {
    forge = await startForge();
    bench = await startLtiBench((lms) => ({
      registrations: [lms.registration(), { ...forge.registration(), deployments: [{ id: forge.deploymentId, organization: "ghost-school" }] }],
      // The app knows no ghost-school; anything else is the router's default organization.
      organizationFor: (named) => (named === "ghost-school" ? null : undefined),
    }));
  });
  afterAll(async () => { await bench?.close(); await forge?.close(); });

  it("refuses an instructor's launch as organization, linking nothing, instead of acting for the request's organization", async () => {
    const track = bench.stack.track();
    const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { sub: "forge-instructor", [C.roles]: [ROLE.instructor] } }));
    expect(checks).toEqual(["organization"]);
    expect(result.status).toBe(400);
    expect(result.text).not.toMatch(/id="status">Ready/);
    expect(track()).toEqual([]);
  });
});
