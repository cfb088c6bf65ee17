/**
 * The router as an LTI 1.3 tool, over real HTTP with the LMS emulator and the platform
 * emulator: a learner's launch reaches the exam through the router's own launch; every
 * bad token of the Security Framework's checks is refused with a page for the LMS
 * administrator, a log line naming the check, and no platform call.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LMS_FAULTS } from "../../src/emulator/index.js";
import { linkCourse, linkOf, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

describe("LTI 1.3 launches", () => {
  let bench: LtiBench;
  beforeAll(async () => {
    bench = await startLtiBench();
    // Course binding: the course's instructor opened the link once, so its learners may launch.
    await linkCourse(bench);
  });
  afterAll(async () => { await bench.close(); });

  it("publishes the tool's public key with kid, alg and use, and no private member", async () => {
    const res = await request(bench.stack.app.url).get("/oral/lti/jwks.json").expect(200);
    expect(res.body.keys).toHaveLength(1);
    expect(res.body.keys[0]).toMatchObject({ kty: "RSA", kid: "tool-1", alg: "RS256", use: "sig" });
    for (const member of ["d", "p", "q", "dp", "dq", "qi"]) expect(res.body.keys[0]).not.toHaveProperty(member);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("redirects the login to the LMS with every parameter of the authentication request", async () => {
    const url = new URL(bench.lms.loginUrl("student-1", bench.linkId));
    const res = await request(url.origin).get(url.pathname + url.search).expect(302);
    const auth = new URL(res.headers.location!);
    expect(auth.origin + auth.pathname).toBe(bench.lms.authorizationUrl);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      scope: "openid", response_type: "id_token", response_mode: "form_post", prompt: "none", client_id: bench.lms.clientId,
      redirect_uri: `${bench.stack.app.url}/oral/lti/launch`, login_hint: "student-1", lti_message_hint: bench.linkId,
    });
    // The state sealed (compact JWE: five base64url parts, the header naming dir and A256GCM), nothing of it readable.
    const state = auth.searchParams.get("state")!;
    expect(state).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(Buffer.from(state.split(".")[0]!, "base64url").toString())).toMatchObject({ alg: "dir", enc: "A256GCM" });
    expect(state).not.toContain(Buffer.from("student-1").toString("base64url").slice(0, 8));
    expect(auth.searchParams.get("nonce")).toMatch(/^[\w-]{32}$/);
    expect(res.headers["set-cookie"]?.[0]).toMatch(/^eoa_lti_browser=[\w-]{32}; .*HttpOnly; Secure; Partitioned; SameSite=None/i);
  });

  it("refuses a login from an unknown issuer with a 400 page", async () => {
    const res = await request(bench.stack.app.url).get("/oral/lti/login").query({ iss: "https://nobody.example", login_hint: "x", target_link_uri: "x" }).expect(400);
    expect(res.text).toContain("no registration for issuer https://nobody.example");
  });

  it("opens the exam for a learner: the framed launch offers a single-use link whose sign-in happens only when followed", async () => {
    const track = bench.stack.track();
    const { launch } = await walkLaunch(bench);
    expect(launch.status).toBe(200);
    expect(launch.text).toContain("Open the exam");
    expect(launch.headers["content-security-policy"]).toContain(`frame-ancestors ${bench.lms.url}`);
    expect(launch.headers["cache-control"]).toBe("no-store");
    expect(launch.headers["referrer-policy"]).toBe("no-referrer");
    expect(track().filter((r) => r.path.includes("sign-in-token"))).toEqual([]);
    const link = linkOf(launch.text)!;
    const opened = await request(bench.stack.app.url).get(link).expect(303);
    expect(opened.headers.location).toContain(`/exam/${bench.examId}?__clerk_ticket=`);
    const signIns = track().filter((r) => r.path.includes("sign-in-token"));
    expect(signIns).toHaveLength(1);
    expect(JSON.stringify(signIns[0])).toContain("sam@lms.example");
    // Single use: the same link again is refused, with no second sign-in.
    await request(bench.stack.app.url).get(link).expect(410);
    expect(track().filter((r) => r.path.includes("sign-in-token"))).toHaveLength(1);
    // The launch record says the student came from the LMS.
    const ines = await bench.stack.login("ines");
    const records = (await ines.get(`/oral/oral-assessments/${bench.examId}/launches?student=sam@lms.example`).expect(200)).body.data;
    expect(records).toEqual([expect.objectContaining({ outcome: "redirected", status: 303, servedBy: "on_demand", via: "lti" })]);
  });

  it("goes straight to the exam link when the LMS opens the tool in a window", async () => {
    const link = bench.lms.addResourceLink({ title: "Cells (window)", custom: { exam_id: bench.examId }, documentTarget: "window" });
    const { launch } = await walkLaunch(bench, "student-2", { linkId: link.id });
    expect(launch.status).toBe(303);
    expect(launch.headers.location).toMatch(/\/oral\/lti\/open\//);
  });

  it("refuses a replayed launch (same id_token and state) once the state is used", async () => {
    const first = await walkLaunch(bench);
    expect(first.launch.status).toBe(200);
    // The very post again: the state still opens, the token still verifies, but its nonce is used.
    const fields = { id_token: first.idToken, state: first.state };
    const again = await request(bench.stack.app.url).post("/oral/lti/launch").type("form").send(fields).set("Cookie", first.cookie!);
    expect(again.status).toBe(400);
    expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_refused" && l.obj.check === "state")).toBe(true);
  });

  it("without the cookie and without Platform Storage, offers to open the launch in a new window", async () => {
    const res = (await walkLaunch(bench, "student-1", { withCookie: false })).launch;
    // The emulator's auth answer carries lti_storage_target, which walkLaunch leaves out here.
    expect(res.status).toBe(401);
    expect(res.text).toContain("Open in a new window");
    expect(res.text).toMatch(/href="\/oral\/lti\/login\?[^"]*login_hint=student-1/);
  });

  it("refuses a learner launch without an e-mail, naming Canvas's privacy setting, with no platform call", async () => {
    bench.lms.setFault("no_email");
    const track = bench.stack.track();
    try {
      const { launch } = await walkLaunch(bench);
      expect(launch.status).toBe(400);
      expect(launch.text).toContain("Privacy Level");
      expect(track()).toEqual([]);
    } finally { bench.lms.setFault(undefined); }
  });

  const refusals = LMS_FAULTS.filter((f) => f !== "no_email");
  const CHECK: Record<string, string> = {
    bad_signature: "signature", alg_none: "alg", hs256: "alg", unknown_kid: "kid", no_kid: "kid", not_lti: "iss_missing", expired: "exp", future_iat: "iat",
    wrong_iss: "iss", wrong_aud: "aud", aud_array_no_azp: "azp", azp_mismatch: "azp", wrong_nonce: "nonce",
    unknown_deployment: "deployment_id", wrong_version: "version", bad_message_type: "message_type", no_roles: "roles", target_mismatch: "target_link_uri",
  };
  it.each(refusals)("refuses the %s token with a page for the administrator, a log line naming the check, and no platform call", async (fault) => {
    bench.lms.setFault(fault);
    const track = bench.stack.track();
    try {
      const { launch } = await walkLaunch(bench);
      expect([400, 401]).toContain(launch.status);
      expect(launch.text).toContain("For your LMS administrator");
      const line = bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").at(-1);
      expect(line?.obj.check).toBe(CHECK[fault]);
      expect(track()).toEqual([]);
    } finally { bench.lms.setFault(undefined); }
  });
});
