/**
 * `frame-ancestors` per registration (issue 28.7), over real HTTP with two LMS emulators
 * registered with one tool: the pages of a launch from LMS A may be framed by A's origins
 * only, not by B's; a page answered before any registration is known keeps every
 * registered LMS's origins (a refusal the framing LMS should still show). The pages
 * answered after the launch (the picker's choice, the course offer's answer, the prepare
 * form's answer and its progress page) name the launch's LMS only too (issue 43).
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { launchFromCourse, linkCourse, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

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

  const onlyA = (csp: string | undefined) => {
    const ancestors = ancestorsOf(csp);
    expect(ancestors).toContain(new URL(bench.lms.url).origin);
    expect(ancestors).not.toContain(new URL(other.url).origin);
  };

  it("the picker's choice is answered for the launch's LMS only, also when it is refused", async () => {
    const dl = bench.lms.openDeepLinking({});
    const { launch } = await walkLaunch(bench, "instructor-1", { linkId: dl });
    const pick = /name="pick" value="([^"]+)"/.exec(launch.text)![1]!;
    const refused = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form").send({ pick, examId: "no-such-exam" });
    expect(refused.status).toBe(400);
    onlyA(refused.headers["content-security-policy"]);
    const chosen = await request(bench.stack.app.url).post("/oral/lti/deep-link").type("form").send({ pick, examId: bench.examId });
    expect(chosen.status).toBe(200);
    onlyA(chosen.headers["content-security-policy"]);
  });

  it("the prepare form's answers and its progress page are for the launch's LMS only", async () => {
    const { launch, launchUrl, cookie } = await launchFromCourse(bench, "instructor-1", bench.linkId);
    expect(launch.status).toBe(200);
    const form = /name="form" value="([^"]+)"/.exec(launch.text)![1]!;
    const action = new URL("/oral/lti/prepare", launchUrl);
    const post = (fields: Record<string, string>) => request(action.origin).post(action.pathname).type("form").set("Cookie", cookie!).send(fields);
    const noStart = await post({ form, tzOffsetMin: "0" });
    expect(noStart.status).toBe(400);
    onlyA(noStart.headers["content-security-policy"]);
    const prepared = await post({ form, startAt: new Date(Date.now() + 3_600_000).toISOString(), tzOffsetMin: "0" });
    expect(prepared.status).toBe(200);
    onlyA(prepared.headers["content-security-policy"]);
    const progress = /href="([^"]*\/lti\/prepare\/[\w-]+)"/.exec(prepared.text)![1]!;
    const page = await request(bench.stack.app.url).get(new URL(progress.replace(/&amp;/g, "&"), launchUrl).pathname);
    expect(page.status).toBe(200);
    onlyA(page.headers["content-security-policy"]);
  });
});
