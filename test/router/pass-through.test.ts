/**
 * Through the router over HTTP: an instructor body whose unknown field is nested past the
 * bound (or too large) is a 400 problem naming the field, nothing reaches the platform,
 * and so nothing is stored that would later break listing the class or launching the exam.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
beforeAll(async () => { stack = await startStack(); });
afterAll(async () => { await stack.close(); });

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { d: value };
  return value;
}

describe("pass-through bounds through the router", () => {
  it("answers 400 problem+json naming the field for an exam with an extra field nested 3,000 deep, and sends nothing", async () => {
    const { classId } = await stack.seedExam();
    const ines = await stack.login("ines");
    const sent = stack.track();
    const res = await ines.post("/oral/oral-assessments")
      .send({ name: "Deep", classId, questions: [{ text: "Q" }], extra: nested(3000) })
      .expect(400).expect("content-type", /^application\/problem\+json/);
    // Past the body's own bound (64 levels) the body parser refuses it, still naming the field.
    expect(res.body.errors).toEqual([expect.objectContaining({ path: "extra", message: expect.stringMatching(/nested at most 64/) })]);
    expect(sent()).toHaveLength(0);
    // The class still lists (only the seeded exam), as it did before.
    const list = await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200);
    expect(list.body.data).toHaveLength(1);
  });

  it("answers 400 naming the field for a too-large value on a course and on a class", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    const big = await ines.post("/oral/courses").send({ name: "Big", blob: "x".repeat(70_000) }).expect(400);
    expect(big.body.errors[0]).toMatchObject({ path: "blob" });
    const { courseId } = await stack.seedExam();
    const before = sent().length;
    const deep = await ines.post(`/oral/courses/${courseId}/classes`)
      .send({ name: "K", startDate: "2026-09-01", endDate: "2026-12-01", meta: nested(33) }).expect(400);
    expect(deep.body.errors[0]).toMatchObject({ path: "meta" });
    expect(sent()).toHaveLength(before);
  });

  it("still accepts unknown fields within the bounds and passes them through", async () => {
    const ines = await stack.login("ines");
    const res = await ines.post("/oral/courses").send({ name: "Fine", extra: nested(32), tags: ["a", "b"] }).expect(201);
    expect(res.body.data).toMatchObject({ name: "Fine", tags: ["a", "b"] });
  });
});
