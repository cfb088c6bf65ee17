/**
 * The scopes a registration holds. Dynamic Registration asks the LMS for the LTI Advantage
 * scopes the tool uses (AGS when the gradebook is on, NRPS for the roster, PNS's notice
 * handlers for course copy notices) and nothing
 * else; the LMS emulator, like an LMS, grants a registration only its scopes (a Dynamic
 * Registration's: what it asked for; a manual one's: what its administrator enabled), so a
 * tool that asked for too little fails here. A manual registration whose LMS grants no
 * scope: *Prepare this exam for the course* answers a page naming the LMS setting to turn on.
 */
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { linkCourse, launchFromCourse, startLtiBench, type LtiBench } from "../support/lti.js";

const AGS = ["lineitem", "lineitem.readonly", "result.readonly", "score"].map((s) => `https://purl.imsglobal.org/spec/lti-ags/scope/${s}`);
const NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly";
const PNS = "https://purl.imsglobal.org/spec/lti/scope/noticehandlers";

let bench: LtiBench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

/** The administrator's *Register by URL*; answers the scopes the tool's registration request asked for. */
async function registeredScopes(b: LtiBench): Promise<string[]> {
  const url = new URL(b.lms.dynamicRegistrationUrl(`${b.stack.app.url}/oral/lti/register`));
  expect((await request(url.origin).get(url.pathname + url.search)).status).toBe(200);
  const asked = b.lms.toolRegistrations.at(-1)!.request.scope;
  return String(asked).split(" ").filter(Boolean).sort();
}

describe("Dynamic Registration's scopes", () => {
  it("asks for the AGS, NRPS and notice-handler (PNS) scopes with the gradebook on (the default)", async () => {
    bench = await startLtiBench({ registrations: [], dynamicRegistration: { timeoutMs: 1000, allowLoopbackHttp: true } });
    expect(await registeredScopes(bench)).toEqual([...AGS, NRPS, PNS].sort());
  });

  it("asks for NRPS and the notice handlers only with the gradebook off", async () => {
    bench = await startLtiBench({ registrations: [], gradebook: false, dynamicRegistration: { timeoutMs: 1000, allowLoopbackHttp: true } });
    expect(await registeredScopes(bench)).toEqual([NRPS, PNS].sort());
  });
});

describe("a manual registration whose LMS grants no scope", () => {
  it("Prepare this exam for the course: a page naming the LMS setting, and the LMS refused the token", async () => {
    bench = await startLtiBench();
    bench.lms.registerTool(`${bench.stack.app.url}/oral`, { scopes: [] });
    await linkCourse(bench);
    const { launch, launchUrl, cookie } = await launchFromCourse(bench, "instructor-1", bench.linkId);
    expect(launch.status).toBe(200);
    const action = new URL(/<form id="prepare-course" method="post" action="([^"]+)"/.exec(launch.text)![1]!.replace(/&amp;/g, "&"), launchUrl);
    const form = /name="form" value="([^"]+)"/.exec(launch.text)![1];
    const refusedBefore = bench.lms.tokenCounts.refused;
    const answer = await request(action.origin).post(action.pathname).set("Cookie", cookie ?? "").type("form").send({ form, startAt: new Date(Date.now() + 60_000).toISOString(), tzOffsetMin: "0" });
    expect(answer.status).toBe(502);
    expect(answer.text).toContain("roster could not be read");
    // What the LMS answered stays in the log: the page is no probe of the LMS.
    expect(answer.text).not.toContain("invalid_scope");
    // The LMS's own setting, in its words.
    expect(answer.text).toContain("LTI Advantage Services");
    expect(answer.text).toContain("Services settings");
    expect(answer.text).toContain(NRPS);
    expect(bench.lms.tokenCounts.refused).toBeGreaterThan(refusedBefore);
  });

  it("granted the NRPS scope, the same registration reads the roster", async () => {
    bench = await startLtiBench();
    bench.lms.registerTool(`${bench.stack.app.url}/oral`, { scopes: [NRPS] });
    bench.lms.setRoster({ size: 3 });
    await linkCourse(bench);
    const { launch, launchUrl, cookie } = await launchFromCourse(bench, "instructor-1", bench.linkId);
    const action = new URL(/<form id="prepare-course" method="post" action="([^"]+)"/.exec(launch.text)![1]!.replace(/&amp;/g, "&"), launchUrl);
    const form = /name="form" value="([^"]+)"/.exec(launch.text)![1];
    const answer = await request(action.origin).post(action.pathname).set("Cookie", cookie ?? "").type("form").send({ form, startAt: new Date(Date.now() + 60_000).toISOString(), tzOffsetMin: "0" });
    expect(answer.status).toBe(200);
    expect(bench.lms.membershipCounts.pages).toBeGreaterThan(0);
  });
});
