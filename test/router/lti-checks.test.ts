/**
 * Every launch check on its own: one forged token (or login, or cookie) per rule, sound in
 * every other respect, refused with that rule's own check name in the log, a page for the
 * LMS administrator, and no platform call. A sound forged launch passes, so each refusal
 * is the rule's doing.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { C, refusedDuring, ROLE, startTwoDeploymentForge, type Forge, type ForgeLaunch } from "../support/lti-forge.js";
import type { LtiBench } from "../support/lti.js";

describe("LTI launch checks, one rule at a time", () => {
  let forge: Forge;
  let bench: LtiBench;
  /** An exam whose course is linked under the second registered deployment. */
  let secondExam: string;
  beforeAll(async () => {
    ({ forge, bench, secondExam } = await startTwoDeploymentForge());
  });
  afterAll(async () => { await bench?.close(); await forge?.close(); });

  it("accepts the sound forged launch (the control)", async () => {
    const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId));
    expect(checks).toEqual([]);
    expect(result.status).toBe(200);
    expect(result.text).toContain("Open the exam");
  });

  const RULES: [string, ForgeLaunch, number][] = [
    ["exp_missing", { claims: { exp: undefined } }, 401],
    ["exp", { claims: (now) => ({ iat: now - 400, exp: now - 200 }) }, 401],
    ["iat_too_old", { claims: (now) => ({ iat: now - 2000, exp: now + 300 }) }, 401],
    ["iat", { claims: (now) => ({ iat: now + 3600, exp: now + 3900 }) }, 401],
    ["iss", { claims: { iss: "https://other-lms.example" } }, 401],
    ["aud", { claims: { aud: "another-client" } }, 401],
    ["azp", { claims: { aud: ["forge-client", "another-client"] } }, 401],
    ["nonce", { claims: { nonce: "not-the-nonce" } }, 401],
    ["deployment_id_missing", { claims: { [C.deploymentId]: undefined }, login: { lti_deployment_id: undefined } }, 400],
    // The login names the same unknown deployment: only "is it registered" can refuse it.
    ["deployment_id", { claims: { [C.deploymentId]: "forge-unknown" }, login: { lti_deployment_id: "forge-unknown" } }, 400],
    // Both deployments are registered: only "is it the login's" can refuse it.
    ["deployment_id_login_mismatch", { claims: { [C.deploymentId]: "forge-deployment-2" } }, 400],
    ["version", { claims: { [C.version]: "1.1.0" } }, 400],
    ["message_type", { claims: { [C.messageType]: "LtiUnknownMessageRequest" } }, 400],
    ["roles", { claims: { [C.roles]: undefined } }, 400],
    ["sub", { claims: { sub: "" } }, 400],
    ["sub_missing", { claims: { sub: undefined } }, 401],
    ["resource_link", { claims: { [C.resourceLink]: undefined } }, 400],
    ["target_link_uri", { claims: { [C.targetLinkUri]: "https://evil.example/steal" } }, 400],
    ["alg", { signing: "HS256" }, 401],
    ["kid", { signing: "unknown_kid" }, 401],
    ["signature", { signing: "stranger" }, 401],
    // A well-formed browser id that is not the one the login recorded.
    ["state_cookie_mismatch", { cookie: "z".repeat(32) }, 401],
    ["id_token_too_large", { idToken: (t) => `${t}${"A".repeat(70_000)}` }, 413],
  ];
  it.each(RULES)("refuses the token breaking %s with that check alone, a page for the administrator and no platform call", async (check, forged, status) => {
    const track = bench.stack.track();
    const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, forged));
    expect(checks).toEqual([check]);
    expect(result.status).toBe(status);
    expect(result.text).toContain("For your LMS administrator");
    expect(track()).toEqual([]);
  });

  it("refuses a token of another registered deployment whose course is linked when the login named the first: only the login's deployment id can refuse it", async () => {
    const second = { [C.deploymentId]: "forge-deployment-2" };
    // The control: the same token after a login naming its deployment opens the exam.
    const sound = await refusedDuring(bench, () => forge.launch(bench, secondExam, { claims: second, login: { lti_deployment_id: "forge-deployment-2" } }));
    expect(sound.checks).toEqual([]);
    expect(sound.result.status).toBe(200);
    const track = bench.stack.track();
    const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, secondExam, { claims: second }));
    expect(checks).toEqual(["deployment_id_login_mismatch"]);
    expect(result.status).toBe(400);
    expect(track()).toEqual([]);
  });

  it("refuses one login's state posted with another login's browser cookie (state and cookie differ)", async () => {
    // A real browser cookie, set by another login of the same LMS: well-formed, known to the tool, not this state's.
    const query = new URLSearchParams({ iss: forge.issuer, client_id: forge.clientId, login_hint: "forge-user-2", target_link_uri: `${bench.stack.app.url}/oral/lti/launch`, lti_deployment_id: forge.deploymentId });
    const other = await request(bench.stack.app.url).get(`/oral/lti/login?${query}`).expect(302);
    const otherCookie = (other.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
    const track = bench.stack.track();
    const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { cookie: otherCookie.slice(otherCookie.indexOf("=") + 1) }));
    expect(checks).toEqual(["state_cookie_mismatch"]);
    expect(result.status).toBe(401);
    expect(track()).toEqual([]);
  });

  it("refuses an unsigned token (alg none) as alg", async () => {
    const { checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { signing: "none" }));
    expect(checks).toEqual(["alg"]);
  });

  it("says a missing deployment is missing, not '(none) is not registered'", async () => {
    const { result } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.deploymentId]: undefined }, login: { lti_deployment_id: undefined } }));
    expect(result.text).toContain("no deployment_id claim");
    expect(result.text).not.toContain("(none)");
  });

  it("says a too large id_token is too large, not that none was posted", async () => {
    const { result } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { idToken: (t) => `${t}${"A".repeat(70_000)}` }));
    expect(result.text).toContain("at most 65536");
    expect(result.text).not.toContain("posted no");
  });

  it("an instructor's sound forged launch is not refused either (roles decide the page, not a check)", async () => {
    const { result, checks } = await refusedDuring(bench, () => forge.launch(bench, bench.examId, { claims: { [C.roles]: [ROLE.instructor] } }));
    expect(checks).toEqual([]);
    expect(result.status).toBe(200);
  });
});
