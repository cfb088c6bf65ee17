import { startTestEmulator } from "../support/emulator.js";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Emulator } from "../../src/emulator/index.js";
import { CLASS, call, seed, student } from "./helpers.js";

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ classCapacity: 2, rateLimits: { dev: 1000 } });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe("POST /students/sign-in-token", () => {
  it("enrols a new student (created: true) and answers 200 with a signin_ token, userId and studentId", async () => {
    const { classId } = await seed(emu);
    const res = await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId });
    expect(res.status).toBe(200);
    expect(res.body.meta.requestId).toMatch(/^req_/);
    expect(res.body.data).toMatchObject({ created: true, userId: expect.stringMatching(/^user_/), studentId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(res.body.data.token).toMatch(/^signin_[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("puts jti, sub (studentId), classId, name, email and a 10-minute exp in the JWT", async () => {
    const { classId } = await seed(emu);
    const { data } = (await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId })).body;
    const claims = decodeJwt(data.token.slice("signin_".length));
    expect(claims).toMatchObject({ sub: data.studentId, classId, name: "Ada Lovelace1", email: "student1@example.edu", jti: expect.any(String) });
    const ttl = (claims.exp! - Math.floor(Date.now() / 1000));
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(601);
  });

  it("matches a returning student by e-mail or orgInternalId (created: false) and issues a new token each time", async () => {
    const { classId } = await seed(emu);
    const first = (await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId })).body.data;
    const byEmail = (await call(emu, "POST", "/students/sign-in-token", { ...student(1), orgInternalId: "changed", email: "STUDENT1@example.edu", classId })).body.data;
    const byId = (await call(emu, "POST", "/students/sign-in-token", { ...student(1), email: "new@example.edu", classId })).body.data;
    for (const again of [byEmail, byId]) {
      expect(again).toMatchObject({ created: false, studentId: first.studentId, userId: first.userId });
      expect(again.token).not.toBe(first.token);
    }
    expect(emu.state().students).toHaveLength(1);
  });

  it("enrols the same person separately per class, keeping one userId", async () => {
    const { courseId, classId } = await seed(emu);
    const other = (await call(emu, "POST", `/courses/${courseId}/classes`, CLASS)).body.data._id;
    const a = (await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId })).body.data;
    const b = (await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId: other })).body.data;
    expect(b.created).toBe(true);
    expect(b.studentId).not.toBe(a.studentId);
    expect(b.userId).toBe(a.userId);
  });

  it("answers 409 conflict when the class is full, while enrolled students still get tokens", async () => {
    const { classId } = await seed(emu);
    expect((await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId })).status).toBe(200);
    expect((await call(emu, "POST", "/students/sign-in-token", { ...student(2), classId })).status).toBe(200);
    const full = await call(emu, "POST", "/students/sign-in-token", { ...student(3), classId });
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe("conflict");
    expect((await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId })).status).toBe(200);
  });

  it("answers 404 for an unknown classId", async () => {
    const res = await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId: "nope" });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "not_found", field: "classId" });
  });

  it("answers 400 validation_error naming the field for a bad e-mail, and for a courseId not of the class", async () => {
    const { classId } = await seed(emu);
    const bad = await call(emu, "POST", "/students/sign-in-token", { ...student(1), email: "not-an-email", classId });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("email");
    const wrongCourse = await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId, courseId: "other" });
    expect(wrongCourse.status).toBe(400);
    expect(wrongCourse.body.error.field).toBe("courseId");
  });

  it("records tickets in state() without the token itself", async () => {
    const { classId } = await seed(emu);
    const { token, studentId } = (await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId })).body.data;
    const { tickets } = emu.state();
    expect(tickets).toEqual([{ jti: expect.any(String), studentId, classId, expiresAt: expect.any(Number), used: false }]);
    expect(JSON.stringify(emu.state())).not.toContain(token.slice(7));
  });
});
