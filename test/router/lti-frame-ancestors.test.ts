/**
 * `frame-ancestors` per registration (issue 28.7), over real HTTP with two LMS emulators
 * registered with one tool: the pages of a launch from LMS A may be framed by A's origins
 * only, not by B's; a page answered before any registration is known keeps every
 * registered LMS's origins (a refusal the framing LMS should still show).
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { linkCourse, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

let bench: LtiBench;
let other: LmsEmulator;
beforeAll(async () => {
  other = await createLmsEmulator({ clientId: "other-client", deploymentId: "other-dep" });
  bench = await startLtiBench((lms) => ({ registrations: [lms.registration(), other.registration()] }));
  await linkCourse(bench);
});
afterAll(async () => {
  await bench.close();
  await other.close();
});

const ancestorsOf = (csp: string | undefined) => /frame-ancestors ([^;]+)/.exec(csp ?? "")?.[1]?.split(" ") ?? [];

describe("frame-ancestors", () => {
  it("lets only the launching registration's LMS frame the launch's page", async () => {
    const { launch } = await walkLaunch(bench);
    expect(launch.status).toBe(200);
    const ancestors = ancestorsOf(launch.headers["content-security-policy"]);
    expect(ancestors).toContain(new URL(bench.lms.url).origin);
    expect(ancestors).not.toContain(new URL(other.url).origin);
  });

  it("keeps every registered LMS on a refusal answered before the registration is known", async () => {
    const res = await request(bench.stack.app.url).post("/oral/lti/launch").type("form").send({ id_token: "x", state: "unknown" });
    expect(res.status).toBe(400);
    const ancestors = ancestorsOf(res.headers["content-security-policy"]);
    expect(ancestors).toEqual(expect.arrayContaining([new URL(bench.lms.url).origin, new URL(other.url).origin]));
  });
});
