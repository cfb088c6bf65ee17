/**
 * Path injection in every `:param`: whatever a caller puts there, the platform sees one
 * encoded path segment under the intended resource (or nothing at all), and the launch
 * route redirects nowhere but examHost/exam/<id>.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
let exam: { courseId: string; classId: string; examId: string };
beforeAll(async () => {
  // Every attack reaches many routes: well over the dev key's 60 calls a minute, which is not what this tests.
  stack = await startStack({ emulator: { rateLimits: { dev: 10_000 } }, client: { rateLimitPerMinute: 10_000 } });
  exam = await stack.seedExam();
});
afterAll(async () => { await stack.close(); });

const ATTACKS = ["..%2F..%2Fstudents%2Fsign-in-token", "..%2F", "%2E%2E", "..", "a%3Fx%3D1", "a%23frag", "a%2Fb", "%2F%2Fevil.example", "a%00b", "a%0D%0AX-Injected:%201", "%252E%252E%252F"];

describe("path parameters cannot reach another upstream path", () => {
  it.each(ATTACKS)("courseId %s", async (attack) => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    const responses = [
      await ines.get(`/oral/courses/${attack}`),
      await ines.put(`/oral/courses/${attack}`).send({ name: "x" }),
      await ines.delete(`/oral/courses/${attack}`),
      await ines.post(`/oral/courses/${attack}/classes`).send({ name: "x", startDate: "2026-01-01", endDate: "2026-02-01" }),
      await ines.get(`/oral/courses/${attack}/classes`),
      await ines.get(`/oral/classes/${attack}/oral-assessments`),
      await ines.get(`/oral/classes/${attack}/roleplays`),
      await ines.get(`/oral/courses/c1/classes/${attack}`),
      await ines.put(`/oral/courses/c1/classes/${attack}`).send({ name: "x" }),
      await ines.delete(`/oral/courses/c1/classes/${attack}`),
      await ines.get(`/oral/oral-assessments/${attack}`),
      await ines.put(`/oral/oral-assessments/${attack}`).send({ name: "x" }),
      await ines.delete(`/oral/oral-assessments/${attack}`),
      await ines.get(`/oral/roleplays/${attack}`),
      await ines.put(`/oral/roleplays/${attack}`).send({ name: "x" }),
      await ines.delete(`/oral/roleplays/${attack}`),
    ];
    for (const [i, res] of responses.entries()) expect([200, 400, 404], `request ${i}`).toContain(res.status);
    for (const req of sent()) {
      // One segment per id, and only the resource paths the routes are for (lists filter by query).
      expect(req.path).toMatch(/^\/courses\/[^/]+(\/classes(\/[^/]+)?)?$|^\/oral-assessments(\/[^/]+)?$|^\/roleplay(\/[^/]+)?$/);
    }
  });

  it.each(ATTACKS)("classId %s in an assessment body goes nowhere but POST /oral-assessments", async (attack) => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    await ines.post("/oral/oral-assessments").send({ name: "x", classId: decodeURIComponent(attack.replace(/%25/g, "%")), questions: [{ text: "q" }] });
    for (const req of sent()) expect(req.path).toBe("/oral-assessments");
  });
});

describe("the launch route redirects only to examHost/exam/<id>", () => {
  it.each([...ATTACKS, "https:%2F%2Fevil.example", "%5C%5Cevil.example"])("examId %s", async (attack) => {
    const ada = await stack.login("ada");
    const sent = stack.track();
    for (const path of [`/oral/launch/${attack}`, `/oral/launch/roleplay/${attack}`]) {
      const res = await ada.get(path);
      expect([400, 404]).toContain(res.status);
      expect(res.headers.location).toBeUndefined();
    }
    expect(sent()).toHaveLength(0);
  });

  it("a real exam id redirects to exactly examHost/exam/<id>", async () => {
    const ada = await stack.login("ada");
    const res = await ada.get(`/oral/launch/${exam.examId}`).expect(303);
    const url = new URL(res.headers.location ?? "");
    expect(`${url.origin}${url.pathname}`).toBe(`${stack.emulator.examHost}/exam/${exam.examId}`);
  });
});
