/**
 * Exam pages as a browser meets them: the session cookie a redeemed ticket starts (a
 * reload mid-exam stays signed in), the page without session or ticket (links to sign in
 * and back), the role-play page (ticket-verified like the oral one), and the platform
 * host's own sign-in, which a launch without a custom exam domain lands on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";
import { call, seed, tokenFor } from "./helpers.js";

const ROLEPLAY = {
  name: "At the pharmacy", roleplayStudentRole: "Patient", roleplayCoralRole: "Pharmacist",
  roleplayScenario: "You have a headache and ask the pharmacist for advice. ".repeat(3),
  roleplayScenarioDetails: "SECRET-AI-INSTRUCTIONS ".repeat(14),
};

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ testKeys: [TEST_KEY], liveKeys: [LIVE_KEY], rateLimits: { dev: 10_000 } });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

async function open(url: string, cookie?: string) {
  const res = await fetch(url, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
  return { status: res.status, headers: res.headers, html: await res.text() };
}
/** The `name=value` part of a Set-Cookie header. */
const cookieOf = (headers: Headers) => headers.get("set-cookie")?.split(";")[0];

describe("the session a ticket starts", () => {
  it("sets an HttpOnly session cookie, so a reload without the ticket stays signed in", async () => {
    const { classId, examId } = await seed(emu);
    const first = await open(emu.examUrl(examId, await tokenFor(emu, classId)));
    expect(first.status).toBe(200);
    const setCookie = first.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^__session=[A-Za-z0-9_-]{24}; Path=\/; HttpOnly; SameSite=Lax$/);

    const reload = await open(emu.examUrl(examId), cookieOf(first.headers));
    expect(reload.status).toBe(200);
    expect(reload.html).toContain("Signed in as Ada Lovelace1");
    expect(reload.headers.get("set-cookie")).toBeNull();
    // reset() signs everyone out.
    emu.reset();
    const { examId: again } = await seed(emu);
    expect((await open(emu.examUrl(again), cookieOf(first.headers))).status).toBe(401);
  });

  it("without session or ticket: 401 with a link to the platform's sign-in and one back to the school", async () => {
    const { examId } = await seed(emu);
    const page = await open(emu.examUrl(examId));
    expect(page.status).toBe(401);
    expect(page.html).toContain(`href="/sign-in?redirect_url=%2Fexam%2F${examId}"`);
    expect(page.html).toContain('href="/">Back to your school');
    expect((await open(`${emu.url}/exam/${examId}`, "__session=forged-value")).status).toBe(401);
  });

  it("a session of someone not in the exam's class gets 403", async () => {
    const a = await seed(emu);
    const b = await seed(emu);
    const first = await open(emu.examUrl(a.examId, await tokenFor(emu, a.classId, 7)));
    const page = await open(emu.examUrl(b.examId), cookieOf(first.headers));
    expect(page.status).toBe(403);
    expect(page.html).toContain("not a student of this exam");
  });
});

describe("the role-play page", () => {
  async function seedRoleplay() {
    const { classId } = await seed(emu);
    const res = await call(emu, "POST", "/roleplay", { ...ROLEPLAY, classId });
    return { classId, id: res.body.data._id as string };
  }

  it("verifies the ticket once and shows the student's side only", async () => {
    const { classId, id } = await seedRoleplay();
    const url = emu.examUrl(id, await tokenFor(emu, classId));
    expect(url).toContain(`/exam/${id}/roleplay?__clerk_ticket=`);
    const page = await open(url);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Signed in as Ada Lovelace1");
    expect(page.html).toContain("Patient");
    expect(page.html).toContain("Pharmacist");
    expect(page.html).toContain("You have a headache");
    expect(page.html).not.toContain("SECRET-AI-INSTRUCTIONS");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect((await open(url)).status).toBe(410);
    expect((await open(emu.examUrl(id), cookieOf(page.headers))).status).toBe(200);
  });

  it("refuses a missing, forged or other class's ticket like the oral page", async () => {
    const { id } = await seedRoleplay();
    const other = await seed(emu);
    expect((await open(emu.examUrl(id))).status).toBe(401);
    expect((await open(emu.examUrl(id, "signin_forged"))).status).toBe(401);
    expect((await open(emu.examUrl(id, await tokenFor(emu, other.classId)))).status).toBe(403);
  });

  it("the entry link /exam/:id of a role-play leads to /exam/:id/roleplay with its ticket; an oral exam has no /roleplay", async () => {
    const { classId, id } = await seedRoleplay();
    const token = await tokenFor(emu, classId);
    const entry = await open(`${emu.url}/exam/${id}?__clerk_ticket=${encodeURIComponent(token)}`);
    expect(entry.status).toBe(303);
    expect(entry.headers.get("location")).toBe(`/exam/${id}/roleplay?__clerk_ticket=${encodeURIComponent(token)}`);
    expect(emu.state().tickets[0]?.used).toBe(false);
    expect((await open(`${emu.url}/exam/${id}/oral-learning`)).status).toBe(404);
    expect((await open(`${emu.url}/exam/${id}/thank-you`)).status).toBe(200);
  });
});

describe("the platform host's sign-in", () => {
  it("a student with no ticket signs in, is enrolled in the exam's class and lands on the exam", async () => {
    const { classId, examId } = await seed(emu);
    const refused = await open(emu.examUrl(examId));
    const signInPath = /href="(\/sign-in\?[^"]+)"/.exec(refused.html)![1]!.replace(/&#38;/g, "&");
    const form = await open(`${emu.url}${signInPath}`);
    expect(form.status).toBe(200);
    expect(form.html).toContain(`name="redirect_url" value="/exam/${examId}"`);

    const posted = await fetch(`${emu.url}/sign-in`, {
      method: "POST", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "grace@school.example", firstName: "Grace", lastName: "Hopper", redirect_url: `/exam/${examId}` }),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe(`/exam/${examId}`);
    const page = await open(`${emu.url}/exam/${examId}`, cookieOf(posted.headers));
    expect(page.status).toBe(200);
    expect(page.html).toContain("Signed in as Grace Hopper");
    expect(emu.state().students).toEqual([expect.objectContaining({ classId, email: "grace@school.example" })]);
  });

  it("never redirects off-site, and asks again for missing fields", async () => {
    const post = (body: Record<string, string>) => fetch(`${emu.url}/sign-in`, {
      method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body),
    });
    const offsite = await post({ email: "a@b.example", firstName: "A", lastName: "B", redirect_url: "https://evil.example/" });
    expect(offsite.headers.get("location")).toBe("/");
    const missing = await post({ email: "a@b.example", firstName: "", lastName: "B" });
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("Please fill in: firstName");
    expect((await open(`${emu.url}/sign-in?redirect_url=//evil.example`)).html).toContain('name="redirect_url" value="/"');
    expect((await open(`${emu.url}/`)).status).toBe(200);
  });
});
