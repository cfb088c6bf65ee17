import { startTestEmulator } from "../support/emulator.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator } from "../../src/emulator/index.js";
import { CLASS, call, seed, student, tokenFor } from "./helpers.js";

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ rateLimits: { dev: 1000 } });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const open = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, html: await res.text() };
};

describe("exam page sign-in", () => {
  it("verifies a ticket once: shows the student, the assessment and its questions, with no-store and no-referrer", async () => {
    const { classId, examId } = await seed(emu);
    const page = await open(emu.examUrl(examId, await tokenFor(emu, classId)));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.html).toContain("Signed in as Ada Lovelace1");
    expect(page.html).toContain("Cell biology oral");
    expect(page.html).toContain("Explain osmosis.");
    expect(page.html).toContain("What does a ribosome do?");
    expect(emu.state().tickets[0]?.used).toBe(true);
  });

  it("refuses a ticket used a second time with 410 and says so", async () => {
    const { classId, examId } = await seed(emu);
    const url = emu.examUrl(examId, await tokenFor(emu, classId));
    expect((await open(url)).status).toBe(200);
    const again = await open(url);
    expect(again.status).toBe(410);
    expect(again.html).toContain("This sign-in link has already been used");
    expect(again.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a forged ticket (same claims, signed with another secret) with 401", async () => {
    const { classId, examId } = await seed(emu);
    const real = await tokenFor(emu, classId);
    const claims = JSON.parse(Buffer.from(real.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("x".repeat(32)));
    const page = await open(emu.examUrl(examId, `signin_${forged}`));
    expect(page.status).toBe(401);
    expect(page.html).toContain("not valid");
    expect(emu.state().tickets[0]?.used).toBe(false);
  });

  it("refuses a tampered ticket (payload changed, signature kept) and garbage with 401", async () => {
    const { classId, examId } = await seed(emu);
    const [head, , sig] = (await tokenFor(emu, classId)).slice(7).split(".");
    const payload = Buffer.from(JSON.stringify({ sub: "someone-else", classId, jti: "x" })).toString("base64url");
    expect((await open(emu.examUrl(examId, `signin_${head}.${payload}.${sig}`))).status).toBe(401);
    expect((await open(emu.examUrl(examId, "signin_not-a-jwt"))).status).toBe(401);
  });

  it("refuses an expired ticket with 401", async () => {
    const short = await startTestEmulator({ tokenTtlMs: 300 });
    try {
      const { classId, examId } = await seed(short);
      const token = await tokenFor(short, classId);
      // Issued before tokenFor returned: its 300 ms are over 300 ms from now.
      const issuedBy = Date.now();
      await new Promise((r) => setTimeout(r, Math.max(0, issuedBy + 301 - Date.now())));
      const page = await open(short.examUrl(examId, token));
      expect(page.status).toBe(401);
      expect(page.html).toContain("expired");
    } finally {
      await short.close();
    }
  });

  it("refuses a ticket for another class with 403, without using it up", async () => {
    const { courseId, classId, examId } = await seed(emu);
    const otherClass = (await call(emu, "POST", `/courses/${courseId}/classes`, CLASS)).body.data._id as string;
    const token = await tokenFor(emu, otherClass);
    const page = await open(emu.examUrl(examId, token));
    expect(page.status).toBe(403);
    expect(page.html).toContain("different class");
    expect(emu.state().tickets[0]?.used).toBe(false);
    expect(classId).not.toBe(otherClass);
  });

  it("refuses a missing ticket with 401 and an unknown exam with 404", async () => {
    const { examId } = await seed(emu);
    expect((await open(emu.examUrl(examId))).status).toBe(401);
    const unknown = await open(emu.examUrl("000000000000000000000000", "signin_x"));
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("Exam not found");
  });

  it("HTML-escapes the student's name and the assessment's text", async () => {
    const { classId } = await seed(emu);
    const exam = (await call(emu, "POST", "/oral-assessments", { name: "<b>Bold</b> exam", classId, questions: [{ text: "1 < 2 & \"x\"" }] })).body.data;
    const token = (await call(emu, "POST", "/students/sign-in-token", { ...student(9), firstName: "<script>alert(1)</script>", classId })).body.data.token;
    const page = await open(emu.examUrl(exam._id, token));
    expect(page.status).toBe(200);
    expect(page.html).toContain("Signed in as &#60;script&#62;alert(1)&#60;/script&#62; Lovelace9");
    expect(page.html).not.toContain("<script>alert(1)</script>");
    expect(page.html).toContain("&#60;b&#62;Bold&#60;/b&#62; exam");
    expect(page.html).toContain("1 &#60; 2 &#38; &#34;x&#34;");
  });

  it("reads the ticket from a configured ticketParam", async () => {
    const custom = await startTestEmulator({ ticketParam: "t" });
    try {
      const { classId, examId } = await seed(custom);
      const token = await tokenFor(custom, classId);
      expect(custom.examUrl(examId, token)).toContain("?t=signin_");
      expect((await open(`${custom.url}/exam/${examId}?__clerk_ticket=${token}`)).status).toBe(401);
      expect((await open(custom.examUrl(examId, await tokenFor(custom, classId)))).status).toBe(200);
    } finally {
      await custom.close();
    }
  });
});

describe("exam sub-pages and the rest of the host", () => {
  it("serves /thank-you, /oral-learning and /live for a known oral exam, with no-store; /roleplay is for role-plays only", async () => {
    const { examId } = await seed(emu);
    expect((await open(`${emu.url}/exam/${examId}/roleplay`)).status).toBe(404);
    for (const sub of ["thank-you", "oral-learning", "live"]) {
      const page = await open(`${emu.url}/exam/${examId}/${sub}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("cache-control")).toBe("no-store");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    }
    expect((await open(`${emu.url}/exam/${examId}/thank-you`)).html).toContain("Thank you");
  });

  it("answers 404 for unknown sub-pages, unknown exams and other paths", async () => {
    const { examId } = await seed(emu);
    expect((await open(`${emu.url}/exam/${examId}/admin`)).status).toBe(404);
    expect((await open(`${emu.url}/exam/nope/thank-you`)).status).toBe(404);
    expect((await open(`${emu.url}/exam/`)).status).toBe(404);
    expect((await open(`${emu.url}/dashboard`)).status).toBe(404);
  });

  it("does not spend a ticket on HEAD (link previewers)", async () => {
    const { classId, examId } = await seed(emu);
    const url = emu.examUrl(examId, await tokenFor(emu, classId));
    expect((await fetch(url, { method: "HEAD" })).status).toBe(405);
    expect((await open(url)).status).toBe(200);
  });
});
