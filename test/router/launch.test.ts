import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
let exam: { courseId: string; classId: string; examId: string };
beforeAll(async () => {
  stack = await startStack();
  exam = await stack.seedExam();
});
afterAll(async () => { await stack.close(); });

function location(res: { headers: Record<string, string> }): URL {
  return new URL(res.headers.location ?? "");
}

describe("GET /launch/:examId on a custom domain", () => {
  it("redirects 303 to examHost/exam/<id> with a one-time ticket, no-store and no-referrer", async () => {
    const ada = await stack.login("ada");
    const sent = stack.track();
    const res = await ada.get(`/oral/launch/${exam.examId}`).expect(303);
    const url = location(res);
    expect(url.origin).toBe(stack.emulator.examHost);
    expect(url.pathname).toBe(`/exam/${exam.examId}`);
    expect(url.searchParams.get("__clerk_ticket")).toMatch(/^signin_/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    // Exactly one platform call: the sign-in token, for Ada in the exam's class.
    expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual(["POST /students/sign-in-token"]);
    expect(sent()[0]?.body).toMatchObject({ email: "ada@school.test", firstName: "Ada", lastName: "Lovelace", orgInternalId: "u-ada", classId: exam.classId, courseId: exam.courseId });

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Signed in as Ada Lovelace");
    const again = await fetch(url);
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(await again.text()).toMatch(/already been used/i);
  });

  it("logs the launch outcome without the ticket", async () => {
    const bob = await stack.login("bob");
    const res = await bob.get(`/oral/launch/${exam.examId}`).expect(303);
    const ticket = location(res).searchParams.get("__clerk_ticket") ?? "";
    const launches = stack.logger.lines.filter((l) => l.obj.event === "launch" && l.obj.outcome === "redirected");
    expect(launches.length).toBeGreaterThan(0);
    const all = JSON.stringify(stack.logger.lines);
    expect(all).not.toContain(ticket);
    expect(all).not.toContain("signin_");
  });

  it("answers a user the default mapper cannot sign in with a 400 page naming the field, and warns the integrator in the log", async () => {
    const nomail = await stack.login("nomail");
    const sent = stack.track();
    const res = await nomail.get(`/oral/launch/${exam.examId}`).expect(400);
    expect(res.text).toContain("e-mail address (email)");
    expect(sent()).toHaveLength(0);
    const warned = stack.logger.lines.filter((l) => l.level === "warn" && l.obj.outcome === "student_incomplete");
    expect(warned.at(-1)?.obj).toMatchObject({ event: "launch", status: 400, fields: ["email"] });
  });

  it("answers 401 to a signed-out browser, or redirects to loginUrl with a relative returnTo", async () => {
    const res = await stack.anonymous().get(`/oral/launch/${exam.examId}`).expect(401);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toMatch(/sign in/i);

    const withLogin = await startStack({ router: { loginUrl: "/login" } });
    try {
      const r = await withLogin.anonymous().get("/oral/launch/abc123").expect(303);
      expect(r.headers.location).toBe(`/login?returnTo=${encodeURIComponent("/oral/launch/abc123")}`);
    } finally { await withLogin.close(); }
  });

  it("answers 404 for an exam the store does not know, and 400 for a malformed id", async () => {
    const ada = await stack.login("ada");
    const sent = stack.track();
    const res = await ada.get("/oral/launch/0123456789abcdef01234567").expect(404);
    expect(res.text).toContain("Exam not found");
    await ada.get("/oral/launch/bad.id").expect(400);
    expect(sent()).toHaveLength(0);
  });

  it("answers 403 when canLaunch says no, passing it the exam, class and student", async () => {
    const seen: unknown[] = [];
    const guarded = await startStack({ router: { canLaunch: (_req, ctx) => { seen.push(ctx); return ctx.student.email !== "bob@school.test"; } } });
    try {
      const ids = await guarded.seedExam();
      const bob = await guarded.login("bob");
      const sent = guarded.track();
      const res = await bob.get(`/oral/launch/${ids.examId}`).expect(403);
      expect(res.text).toMatch(/not enrolled/i);
      expect(sent()).toHaveLength(0);
      expect(seen[0]).toMatchObject({ examId: ids.examId, classId: ids.classId, courseId: ids.courseId, student: { email: "bob@school.test", orgInternalId: "u-bob" } });
      await (await guarded.login("ada")).get(`/oral/launch/${ids.examId}`).expect(303);
    } finally { await guarded.close(); }
  });

  it("names the missing field when the user has no e-mail, with a 400 page and nothing sent", async () => {
    const nomail = await stack.login("nomail");
    const sent = stack.track();
    const res = await nomail.get(`/oral/launch/${exam.examId}`).expect(400);
    expect(res.text).toContain("(email)");
    expect(sent()).toHaveLength(0);
  });

  it("uses resolveClassId for exams the store does not know", async () => {
    // A second app on the same platform, with an empty store, that keeps its own mapping.
    const mapped = await startStack({ useEmulator: stack.emulator, router: { resolveClassId: (examId) => (examId === exam.examId ? { classId: exam.classId } : undefined) } });
    const unmapped = await startStack({ useEmulator: stack.emulator });
    try {
      const res = await (await mapped.login("ada")).get(`/oral/launch/${exam.examId}`).expect(303);
      expect(location(res).pathname).toBe(`/exam/${exam.examId}`);
      await (await unmapped.login("ada")).get(`/oral/launch/${exam.examId}`).expect(404);
    } finally {
      await mapped.close();
      await unmapped.close();
    }
  });

  it("honours a custom ticketParam", async () => {
    const custom = await startStack({ router: { ticketParam: "ticket" }, emulator: { ticketParam: "ticket" } });
    try {
      const ids = await custom.seedExam();
      const res = await (await custom.login("ada")).get(`/oral/launch/${ids.examId}`).expect(303);
      const url = location(res);
      expect(url.searchParams.get("ticket")).toMatch(/^signin_/);
      expect(url.searchParams.has("__clerk_ticket")).toBe(false);
      expect(await (await fetch(url)).text()).toContain("Signed in as Ada Lovelace");
    } finally { await custom.close(); }
  });
});

describe("GET /launch/:examId without a custom domain", () => {
  it("redirects to the platform host's exam page and asks for no token", async () => {
    const plain = await startStack({ router: { examHost: undefined } });
    try {
      const ids = await plain.seedExam();
      const ada = await plain.login("ada");
      const sent = plain.track();
      const res = await ada.get(`/oral/launch/${ids.examId}`).expect(303);
      expect(res.headers.location).toBe(`${plain.emulator.url}/exam/${ids.examId}`);
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(sent()).toHaveLength(0);
    } finally { await plain.close(); }
  });
});
