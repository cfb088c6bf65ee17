import express from "express";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, memoryStore, oralAssessments } from "../../src/index.js";
import { listen } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
beforeAll(async () => { stack = await startStack(); });
afterAll(async () => { await stack.close(); });
afterEach(() => { stack.emulator.clearFaults(); });

const problemType = /^application\/problem\+json/;

describe("instructor API", () => {
  it("runs the whole flow: course → class → assessment → lists, rename, delete", async () => {
    const ines = await stack.login("ines");

    const course = await ines.post("/oral/courses").send({ name: "Physics" }).expect(201);
    expect(course.body.data).toMatchObject({ name: "Physics", level: "undergraduate" });
    expect(course.body.meta.requestId).toMatch(/^req_/);
    const courseId = course.body.data._id;

    const list = await ines.get("/oral/courses").expect(200);
    expect(list.body.data.map((c: { _id: string }) => c._id)).toContain(courseId);
    await ines.get(`/oral/courses/${courseId}`).expect(200).expect((r) => expect(r.body.data.name).toBe("Physics"));

    const renamed = await ines.put(`/oral/courses/${courseId}`).send({ name: "Physics II" }).expect(200);
    expect(renamed.body.data.name).toBe("Physics II");
    // The list cache is invalidated by the write: the new name shows at once.
    const relisted = await ines.get("/oral/courses").expect(200);
    expect(relisted.body.data.find((c: { _id: string }) => c._id === courseId).name).toBe("Physics II");

    const cls = await ines.post(`/oral/courses/${courseId}/classes`)
      .send({ name: "Morning", classMode: "hybrid", startDate: "2026-09-01", endDate: "2026-12-01T10:00:00+02:00" }).expect(201);
    expect(cls.body.data).toMatchObject({ name: "Morning", classMode: "hybrid", startDate: "2026-09-01T00:00:00.000Z", endDate: "2026-12-01T08:00:00.000Z" });
    const classId = cls.body.data._id;
    const classes = await ines.get(`/oral/courses/${courseId}/classes`).expect(200);
    expect(classes.body.data.map((c: { _id: string }) => c._id)).toEqual([classId]);

    const exam = await ines.post("/oral/oral-assessments")
      .send({ name: "Motion", classId, questions: [{ text: "Define velocity" }], isOpenBook: true, language: "en" }).expect(201);
    expect(exam.body.data).toMatchObject({ name: "Motion", classId, duration: 600, examType: "Generic", isOpenBook: true, language: "en" });
    expect(exam.body.data.questions[0].id).toBeTruthy();
    const exams = await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200);
    expect(exams.body.data.map((a: { _id: string }) => a._id)).toEqual([exam.body.data._id]);

    await ines.delete(`/oral/courses/${courseId}`).expect(204);
    await ines.get(`/oral/courses/${courseId}`).expect(404).expect("content-type", problemType);
    // The platform no longer knows the course, so it has no class list to give.
    await ines.get(`/oral/courses/${courseId}/classes`).expect(404);
    expect((await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200)).body.data).toEqual([]);
  });

  it("marks every instructor answer private: Cache-Control no-store and X-Content-Type-Options nosniff", async () => {
    const ines = await stack.login("ines");
    const answers: [string, request.Response][] = [];
    const keep = (what: string) => (res: request.Response) => { answers.push([what, res]); };
    const course = await ines.post("/oral/courses").send({ name: "Private" }).expect(201).expect(keep("201 create"));
    const courseId = course.body.data._id;
    await ines.post("/oral/courses").set("Idempotency-Key", "private-1").send({ name: "Once" }).expect(201);
    await ines.post("/oral/courses").set("Idempotency-Key", "private-1").send({ name: "Once" }).expect(201).expect(keep("201 replay"));
    await ines.get("/oral/courses").expect(200).expect(keep("200 list"));
    await ines.get(`/oral/courses/${courseId}`).expect(200).expect(keep("200 get"));
    await ines.post("/oral/courses").send({}).expect(400).expect(keep("400 problem"));
    await stack.anonymous().get("/oral/courses").expect(401).expect(keep("401 problem"));
    const { examId } = await stack.seedExam();
    const roster = [{ email: "ada@school.test", firstName: "Ada", lastName: "Lovelace", orgInternalId: "u-ada" }];
    await ines.post(`/oral/oral-assessments/${examId}/prepare`).send({ startAt: new Date(Date.now() + 3_600_000).toISOString(), roster }).expect(202).expect(keep("202 prepare"));
    await ines.get(`/oral/oral-assessments/${examId}/prepare`).expect(200).expect(keep("200 prepare progress"));
    await ines.delete(`/oral/courses/${courseId}`).expect(204).expect(keep("204 delete"));
    for (const [what, res] of answers) {
      expect(res.headers["cache-control"], what).toBe("no-store");
      expect(res.headers["x-content-type-options"], what).toBe("nosniff");
    }
  });

  it("answers 401 problem+json with no user and sends nothing upstream", async () => {
    const sent = stack.track();
    const res = await stack.anonymous().post("/oral/courses").send({ name: "X" }).expect(401).expect("content-type", problemType);
    expect(res.body).toMatchObject({ status: 401, code: "unauthenticated" });
    await stack.anonymous().get("/oral/courses").expect(401);
    expect(sent()).toHaveLength(0);
  });

  it("answers 403 to a student", async () => {
    const ada = await stack.login("ada");
    const res = await ada.post("/oral/courses").send({ name: "X" }).expect(403).expect("content-type", problemType);
    expect(res.body.code).toBe("forbidden");
  });

  it("denies everyone when isInstructor is omitted", async () => {
    const other = await startStack({ router: { isInstructor: undefined } });
    try {
      const ines = await other.login("ines");
      await ines.get("/oral/courses").expect(403);
    } finally { await other.close(); }
  });

  it("rejects invalid input with 400 naming every field, sending nothing upstream", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    const res = await ines.post("/oral/courses/abc/classes").send({ name: "", startDate: "2026-10-01", endDate: "2026-09-01", classMode: "remote" })
      .expect(400).expect("content-type", problemType);
    expect(res.body).toMatchObject({ status: 400, code: "validation_error", title: expect.any(String), detail: expect.any(String) });
    const paths = res.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "classMode"]));
    const bad = await ines.post("/oral/oral-assessments").send({ name: "x", classId: "c", duration: -5, questions: [] }).expect(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(["duration", "questions"]));
    await ines.post("/oral/courses/abc/classes").send({ name: "n", startDate: "2026-10-01", endDate: "2026-09-01" }).expect(400)
      .expect((r) => expect(r.body.errors[0].path).toBe("endDate"));
    await ines.put("/oral/courses/abc").send({}).expect(400);
    expect(sent()).toHaveLength(0);
  });

  it("answers malformed JSON with 400 problem+json, not an HTML page", async () => {
    const ines = await stack.login("ines");
    const res = await ines.post("/oral/courses").set("Content-Type", "application/json").send('{"name": "x",').expect(400);
    expect(res.headers["content-type"]).toMatch(problemType);
    expect(res.body.code).toBe("malformed_json");
  });

  it("refuses a body over the size limit with 413", async () => {
    const ines = await stack.login("ines");
    const res = await ines.post("/oral/courses").send({ name: "x", notes: "a".repeat(200_000) }).expect(413);
    expect(res.body.code).toBe("body_too_large");
  });

  it("accepts only application/json bodies on state-changing routes (CSRF)", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    await ines.post("/oral/courses").type("form").send("name=Evil").expect(415);
    await ines.post("/oral/courses").set("Content-Type", "text/plain").send('{"name":"Evil"}').expect(415);
    expect(sent()).toHaveLength(0);
  });

  it("refuses a cross-site Origin on state-changing routes and allows same-origin and trusted ones", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    const res = await ines.post("/oral/courses").set("Origin", "https://evil.example").send({ name: "Evil" }).expect(403);
    expect(res.body.code).toBe("cross_site_request");
    await ines.delete("/oral/courses/abc").set("Origin", "https://evil.example").expect(403);
    await ines.post("/oral/courses").set("Sec-Fetch-Site", "cross-site").send({ name: "Evil" }).expect(403);
    expect(sent()).toHaveLength(0);
    await ines.post("/oral/courses").set("Origin", stack.app.url).send({ name: "Mine" }).expect(201);
    // Reads are not state-changing: a cross-site Origin on GET is not refused by the guard.
    await ines.get("/oral/courses").set("Origin", "https://evil.example").expect(200);

    const trusted = await startStack({ router: { trustedOrigins: ["https://lms.example.edu"] } });
    try {
      const i2 = await trusted.login("ines");
      await i2.post("/oral/courses").set("Origin", "https://lms.example.edu").send({ name: "Trusted" }).expect(201);
    } finally { await trusted.close(); }
  });

  it("works when the host app already parsed the body", async () => {
    const host = express();
    host.use(express.json());
    host.use((req, _res, next) => { (req as { user?: unknown }).user = { id: "i", role: "instructor" }; next(); });
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: stack.emulator.url });
    host.use("/lms/oral", oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), isInstructor: () => true }));
    const server = await listen(host);
    try {
      const res = await request(server.url).post("/lms/oral/courses").send({ name: "Pre-parsed" }).expect(201);
      expect(res.body.data.name).toBe("Pre-parsed");
    } finally {
      await server.close();
      platform.close();
    }
  });

  it("passes the platform's 404 through with its code", async () => {
    const ines = await stack.login("ines");
    const res = await ines.get("/oral/courses/000000000000000000000000").expect(404).expect("content-type", problemType);
    expect(res.body.code).toBe("not_found");
  });

  it("records a create even when the browser disconnects before the platform answers", async () => {
    const ines = await stack.login("ines");
    const course = await ines.post("/oral/courses").send({ name: "Slow" }).expect(201);
    const courseId = course.body.data._id;
    stack.emulator.setLatency({ fixedMs: 400 });
    const aborted = ines.post(`/oral/courses/${courseId}/classes`).send({ name: "Gone", startDate: "2026-09-01", endDate: "2026-10-01" }).timeout(100);
    await expect(aborted).rejects.toThrow();
    // The platform answers the create 400 ms after it arrived; the router records it then.
    stack.emulator.clearFaults();
    const names = async () => (await ines.get(`/oral/courses/${courseId}/classes`).expect(200)).body.data.map((c: { name: string }) => c.name);
    const giveUpAt = Date.now() + 10_000;
    while ((await names()).length === 0 && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 50));
    expect(await names()).toEqual(["Gone"]);
  });
});
