/**
 * The example app's two schools (North High and South College, each its own organization
 * on the emulator): start-up checks of the schools, each school's dashboard and roster,
 * each student launched to their own school's exam host, and another school's exam unknown.
 */
import type request from "supertest";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "express-oral-assessments";
import { createExampleApp } from "../../example-app/app.js";
import { readHtml } from "../support/html-page.js";
import { useExampleApp } from "../support/example-app.js";

const app = useExampleApp();

describe("two schools", () => {
  const signInCalls = () => app.emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).length;

  /** A course, a class and an oral assessment, made by the school's instructor through the plugin's API. */
  async function examOf(instructor: string, label: string) {
    const agent = await app.loggedIn(instructor);
    const course = await agent.post("/oral/courses").send({ name: `${label} course` });
    expect(course.status).toBe(201);
    const cls = await agent.post(`/oral/courses/${course.body.data._id}/classes`).send({ name: `${label} group` });
    expect(cls.status).toBe(201);
    const exam = await agent.post("/oral/oral-assessments").send({ name: `${label} oral`, classId: cls.body.data._id, questions: [{ text: "Why?" }] });
    expect(exam.status).toBe(201);
    return { agent, courseId: course.body.data._id as string, examId: exam.body.data._id as string };
  }

  it("refuses schools it cannot serve at start, every problem at once, no key in the message", () => {
    let error: unknown;
    try {
      createExampleApp({ schools: [{ ...app.schools[0]!, apiKey: "" }, { ...app.schools[1]!, id: "north" }], users: app.users });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const message = String((error as Error).message);
    expect(message).toContain("schools[0].apiKey: is missing.");
    expect(message).toContain("schools: has two schools with the same id.");
    expect(message).not.toContain(app.schools[1]!.apiKey);
    expect(() => createExampleApp({ schools: [], users: app.users })).toThrow(/schools: must be a non-empty array/);
  });

  it("gives each school's dashboard its own courses only, and names the school", async () => {
    const north = await examOf("instructor", "North listing");
    const south = await examOf("professor", "South listing");
    const ids = async (agent: request.Agent) => {
      const res = await agent.get("/oral/courses");
      expect(res.status).toBe(200);
      return res.body.data.map((c: { _id: string }) => c._id);
    };
    const northCourses = await ids(north.agent);
    const southCourses = await ids(south.agent);
    expect(northCourses).toContain(north.courseId);
    expect(northCourses).not.toContain(south.courseId);
    expect(southCourses).toContain(south.courseId);
    expect(southCourses).not.toContain(north.courseId);
    expect((await north.agent.get("/app/me")).body.data.school).toEqual({ id: "north", name: "North High" });
    expect((await south.agent.get("/app/me")).body.data.school).toEqual({ id: "south", name: "South College" });
    // The roster note names the school's own students only.
    const roster = (await south.agent.get("/app/roster")).body.data;
    expect(roster.everyClass.map((u: { username: string }) => u.username)).toEqual(["sam", "tia"]);
    expect(roster.noClass).toEqual([]);
  });

  it("sends a student of each school from their own exam to their school's exam host", async () => {
    const north = await examOf("instructor", "North launch");
    const south = await examOf("professor", "South launch");
    const northHost = app.emulator.organization("north").examHost;
    const southHost = app.emulator.organization("south").examHost;
    expect(northHost).not.toBe(southHost);

    const ana = await (await app.loggedIn("ana")).get(`/oral/launch/${north.examId}`);
    expect(ana.status).toBe(303);
    expect(ana.headers.location).toMatch(new RegExp(`^${northHost}/exam/${north.examId}\\?__clerk_ticket=`));
    const sam = await (await app.loggedIn("sam")).get(`/oral/launch/${south.examId}`);
    expect(sam.status).toBe(303);
    expect(sam.headers.location).toMatch(new RegExp(`^${southHost}/exam/${south.examId}\\?__clerk_ticket=`));
    // Each sign-in was asked with the student's own school's key.
    const signIns = app.emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).slice(-2);
    expect(signIns.map((r) => [r.org, r.status])).toEqual([["north", 200], ["south", 200]]);
  });

  // Needs the router's store scoped by organization: an exam of one school is then unknown
  // under the other. A store shared by both schools finds the exam, and the sign-in call
  // with the student's school's key is refused by the platform (a 502).
  it("shows the 404 page to a student who opens the other school's launch link, with no sign-in call", async () => {
    const north = await examOf("instructor", "North private");
    const south = await examOf("professor", "South private");
    const before = signInCalls();

    for (const [student, examId] of [["sam", north.examId], ["ana", south.examId]] as const) {
      const res = await (await app.loggedIn(student)).get(`/oral/launch/${examId}`);
      expect(res.status, `${student} opening ${examId}`).toBe(404);
      expect(res.headers["content-type"]).toMatch(/text\/html/);
      // The plugin's page in the app's layout, under the student's own school.
      const page = readHtml(res.text);
      expect(page.headings).toEqual(["Exam not found"]);
      expect(page.attr("form", "action")).toEqual(["/logout"]);
      expect(res.text).toContain(student === "sam" ? "South College" : "North High");
    }
    expect(signInCalls()).toBe(before);
  });

  // Needs the store scoped by organization, as the 404 above (app-api.js, /app/my-exams).
  it("lists on a student's page the exams of their own school only", async () => {
    const north = await examOf("instructor", "North page");
    const south = await examOf("professor", "South page");
    const examsOf = async (student: string) =>
      ((await (await app.loggedIn(student)).get("/app/my-exams")).body.data as { examId: string }[]).map((e) => e.examId);
    const ana = await examsOf("ana");
    const sam = await examsOf("sam");
    expect(ana).toContain(north.examId);
    expect(ana).not.toContain(south.examId);
    expect(sam).toContain(south.examId);
    expect(sam).not.toContain(north.examId);
  });
});
