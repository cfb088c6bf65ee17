/**
 * How the instructor API is dispatched and answered: one layer looks the route table up
 * (route-table.ts), the guards run as one layer (chain.ts), `isInstructor` may answer
 * synchronously or with a promise, and JSON answers are written directly (json-answer.ts).
 * Each test checks behaviour Express's own routing gave before, so the faster path
 * cannot quietly change what integrators see.
 */
import type { Request } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
let courseId: string;
beforeAll(async () => {
  stack = await startStack();
  const ines = await stack.login("ines");
  courseId = (await ines.post("/oral/courses").send({ name: "Dispatch" }).expect(201)).body.data._id;
});
afterAll(async () => { await stack.close(); });

const isInstructorRole = (req: Request) => (req.user as { role?: string } | undefined)?.role === "instructor";

describe("route table dispatch", () => {
  it("matches paths as Express does: any letter case, an optional trailing slash", async () => {
    const ines = await stack.login("ines");
    await ines.get(`/oral/courses/${courseId}/`).expect(200).expect((r) => expect(r.body.data._id).toBe(courseId));
    await ines.get(`/oral/COURSES/${courseId}`).expect(200).expect((r) => expect(r.body.data._id).toBe(courseId));
    await ines.get(`/oral/courses/${courseId}/classes/`).expect(200).expect((r) => expect(r.body.data).toEqual([]));
  });

  it("answers HEAD on a GET route with the GET's status and headers and no body", async () => {
    const ines = await stack.login("ines");
    const res = await ines.head(`/oral/courses/${courseId}`).expect(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.text ?? "").toBe("");
  });

  it("decodes parameters, and answers a malformed escape with 400 naming the parameter, sending nothing", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    const res = await ines.get("/oral/courses/%E0%A4%A/classes").expect(400).expect("content-type", /^application\/problem\+json/);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(["courseId"]);
    // An encoded id reaches the check decoded: "%01" is a control character, not an id.
    const control = await ines.get("/oral/courses/abc%01def").expect(400);
    expect(control.body.errors[0]).toMatchObject({ path: "courseId", message: "must not contain control characters" });
    expect(sent()).toHaveLength(0);
  });

  it("leaves a method or path outside the table to the host app (404), after the guards", async () => {
    const ines = await stack.login("ines");
    await ines.patch(`/oral/courses/${courseId}`).send({ name: "x" }).expect(404);
    await ines.get(`/oral/courses/${courseId}/nothing-here`).expect(404);
    await stack.anonymous().get(`/oral/courses/${courseId}/nothing-here`).expect(401);
  });

  it("writes JSON answers itself: type, length, no ETag hashed from the body", async () => {
    const ines = await stack.login("ines");
    const res = await ines.get(`/oral/courses/${courseId}`).expect(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.text));
    expect(res.headers.etag).toBeUndefined();
  });
});

describe("isInstructor, synchronous or not", () => {
  it("accepts a promise of true and refuses a promise of false", async () => {
    const asyncStack = await startStack({
      useEmulator: stack.emulator,
      router: { isInstructor: async (req) => { await new Promise((r) => setTimeout(r, 5)); return isInstructorRole(req); } },
    });
    try {
      await (await asyncStack.login("ines")).get(`/oral/courses/${courseId}`).expect(200);
      const res = await (await asyncStack.login("ada")).get(`/oral/courses/${courseId}`).expect(403);
      expect(res.body.code).toBe("forbidden");
    } finally { await asyncStack.close(); }
  });

  it("answers 500 problem+json when isInstructor throws or rejects, sending nothing upstream", async () => {
    for (const isInstructor of [() => { throw new Error("directory down"); }, () => Promise.reject(new Error("directory down"))]) {
      const failing = await startStack({ useEmulator: stack.emulator, router: { isInstructor } });
      try {
        const sent = stack.track();
        const res = await (await failing.login("ines")).get(`/oral/courses/${courseId}`).expect(500).expect("content-type", /^application\/problem\+json/);
        expect(res.body.code).toBe("internal_error");
        expect(sent()).toHaveLength(0);
      } finally { await failing.close(); }
    }
  });
});
