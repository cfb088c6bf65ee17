/**
 * A launch without a custom exam domain, followed end to end on the emulator: the router
 * redirects to the platform host's exam page with no ticket, where the student signs in
 * on the platform's own sign-in page and lands on the exam, and stays signed in on reload.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ router: { examHost: undefined } });
});
afterAll(() => stack.close());

describe("launch on the platform's own host", () => {
  it("launch → exam page (401, sign-in link) → platform sign-in → the exam, signed in", async () => {
    const { classId, examId } = await stack.seedExam();
    const ada = await stack.login("ada");
    const launch = await ada.get(`/oral/launch/${examId}`).expect(303);
    const examUrl = new URL(launch.headers.location as string);

    const gate = await fetch(examUrl, { redirect: "manual" });
    expect(gate.status).toBe(401);
    const signInPath = /href="(\/sign-in\?[^"]+)"/.exec(await gate.text())![1]!.replace(/&#38;/g, "&");
    const form = await (await fetch(new URL(signInPath, examUrl))).text();
    const redirectUrl = /name="redirect_url" value="([^"]+)"/.exec(form)![1]!;
    expect(redirectUrl).toBe(examUrl.pathname);

    const signedIn = await fetch(new URL("/sign-in", examUrl), {
      method: "POST", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "ada@school.test", firstName: "Ada", lastName: "Lovelace", redirect_url: redirectUrl }),
    });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const back = new URL(signedIn.headers.get("location")!, examUrl);
    expect(back.href).toBe(examUrl.href);
    for (let visit = 0; visit < 2; visit++) {
      const page = await fetch(back, { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Signed in as Ada Lovelace");
    }
    expect(stack.emulator.state().students).toEqual([expect.objectContaining({ classId, email: "ada@school.test" })]);
  });
});
