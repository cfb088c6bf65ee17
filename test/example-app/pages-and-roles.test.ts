/**
 * The example app's pages and roles (over real HTTP, the app on an embedded emulator): the
 * dashboard for instructors only, the plugin's instructor API refusing students, a
 * student's exams from the roster, editing and deleting, the plugin's pages in the app's
 * layout, and no password in req.user.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { readHtml } from "../support/html-page.js";
import { PASSWORD, useExampleApp } from "../support/example-app.js";

const app = useExampleApp();

describe("pages and roles", () => {
  it("shows the dashboard to the instructor only", async () => {
    const student = await app.loggedIn("ana");
    const refused = await student.get("/dashboard");
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("for instructors");

    const instructor = await app.loggedIn("instructor");
    const page = await instructor.get("/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.text).toContain('id="course-form"');
  });

  it("lets the plugin's instructor API refuse students (403) and signed-out callers (401)", async () => {
    expect((await request(app.base).get("/oral/courses")).status).toBe(401);
    const student = await app.loggedIn("ben");
    const res = await student.post("/oral/courses").send({ name: "Nope" });
    expect(res.status).toBe(403);
    expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
  });

  it("lists a student's exams from the roster: enrolled students see them, the outsider does not", async () => {
    const instructor = await app.loggedIn("instructor");
    const course = await instructor.post("/oral/courses").send({ name: "Roster course" });
    expect(course.status).toBe(201);
    const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`)
      .send({ name: "Group R", startDate: "2026-09-01", endDate: "2026-12-20" });
    expect(cls.status).toBe(201);
    const exam = await instructor.post("/oral/oral-assessments")
      .send({ name: "Roster exam", classId: cls.body.data._id, questions: [{ text: "Why?" }] });
    expect(exam.status).toBe(201);
    const examId: string = exam.body.data._id;

    const ana = await app.loggedIn("ana");
    const mine = await ana.get("/app/my-exams");
    expect(mine.status).toBe(200);
    expect(mine.body.data).toContainEqual(expect.objectContaining({
      examId, name: "Roster exam", className: "Group R", courseName: "Roster course", launchUrl: `/oral/launch/${examId}`,
    }));

    const outsider = await app.loggedIn("outsider");
    const theirs = await outsider.get("/app/my-exams");
    expect(theirs.body.data).toEqual([]);
    const launch = await outsider.get(`/oral/launch/${examId}`);
    expect(launch.status).toBe(403);
    expect(launch.headers["content-type"]).toMatch(/text\/html/);
    // The plugin's page, in the app's own layout: its header, "Log out", a way home, its CSP.
    const page = readHtml(launch.text);
    expect(page.attr("section", "data-kind")).toEqual(["forbidden"]);
    expect(page.attr("form", "action")).toEqual(["/logout"]);
    expect(page.attr("link", "href")).toEqual(["/assets/styles.css"]);
    expect(page.links).toEqual([{ href: "/", text: "Back to the home page" }]);
    expect(launch.headers["content-security-policy"]).toContain("style-src 'self'");
    expect(launch.headers["cache-control"]).toBe("no-store");

    const launched = await ana.get(`/oral/launch/${examId}`);
    expect(launched.status).toBe(303);
    expect(launched.headers.location).toMatch(new RegExp(`^${app.emulator.examHost}/exam/${examId}\\?__clerk_ticket=`));
  });

  it("edits and deletes a class and an assessment, and a student launches a role-play from their page", async () => {
    const instructor = await app.loggedIn("instructor");
    const course = await instructor.post("/oral/courses").send({ name: "Edit course" });
    const courseId: string = course.body.data._id;
    // No classMode, no dates: what the dashboard now sends for empty optional fields.
    const cls = await instructor.post(`/oral/courses/${courseId}/classes`).send({ name: "Group E" });
    expect(cls.status).toBe(201);
    const classId: string = cls.body.data._id;
    const edited = await instructor.put(`/oral/courses/${courseId}/classes/${classId}`).send({ name: "Group E2", classMode: "hybrid" });
    expect(edited.status).toBe(200);
    expect((await instructor.get(`/oral/courses/${courseId}/classes`)).body.data)
      .toContainEqual(expect.objectContaining({ _id: classId, name: "Group E2", classMode: "hybrid" }));

    const exam = await instructor.post("/oral/oral-assessments").send({ name: "To delete", classId });
    const examId: string = exam.body.data._id;
    const roleplay = await instructor.post("/oral/roleplays").send({
      name: "Role-play R", classId, roleplayStudentRole: "Nurse", roleplayCoralRole: "Patient",
      roleplayScenario: "A".repeat(150), roleplayScenarioDetails: "B".repeat(300),
    });
    expect(roleplay.status).toBe(201);
    const roleplayId: string = roleplay.body.data._id;

    const ana = await app.loggedIn("ana");
    const mine = (await ana.get("/app/my-exams")).body.data;
    expect(mine).toContainEqual(expect.objectContaining({ examId: roleplayId, kind: "roleplay", launchUrl: `/oral/launch/roleplay/${roleplayId}` }));
    const launched = await ana.get(`/oral/launch/roleplay/${roleplayId}`);
    expect(launched.status).toBe(303);
    expect(launched.headers.location).toMatch(new RegExp(`^${app.emulator.examHost}/exam/${roleplayId}/roleplay\\?__clerk_ticket=`));

    expect((await instructor.delete(`/oral/oral-assessments/${examId}`)).status).toBe(204);
    expect((await ana.get("/app/my-exams")).body.data.map((e: { examId: string }) => e.examId)).not.toContain(examId);
    const gone = await ana.get(`/oral/launch/${examId}`);
    expect(gone.status).toBe(404);
    expect(gone.headers["content-type"]).toMatch(/text\/html/);

    expect((await instructor.delete(`/oral/courses/${courseId}/classes/${classId}`)).status).toBe(204);
    expect((await ana.get(`/oral/launch/roleplay/${roleplayId}`)).status).toBe(404);
  });

  it("tells an instructor who opens a student launch link what it is for (not \"ask your instructor\"), with no sign-in call", async () => {
    const instructor = await app.loggedIn("instructor");
    const course = await instructor.post("/oral/courses").send({ name: "Open course" });
    const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`).send({ name: "Group O" });
    const exam = await instructor.post("/oral/oral-assessments").send({ name: "Open exam", classId: cls.body.data._id });
    expect(exam.status).toBe(201);
    const signInCalls = () => app.emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).length;
    const before = signInCalls();

    const opened = await instructor.get(`/oral/launch/${exam.body.data._id}`);
    expect(opened.status).toBe(403);
    const page = readHtml(opened.text);
    expect(page.headings).toEqual(["This launch link is for students"]);
    expect(page.paragraphs[0]).toContain("log in as an enrolled student");
    expect(opened.text).not.toContain("ask your instructor");
    expect(page.links).toEqual([{ href: "/", text: "Back to the home page" }]);
    expect(signInCalls()).toBe(before);

    // A student on no roster still gets the plugin's own words.
    const outsider = await app.loggedIn("outsider");
    const refused = await outsider.get(`/oral/launch/${exam.body.data._id}`);
    expect(readHtml(refused.text).headings).toEqual(["You cannot take this exam"]);
  });

  it("answers the app's JSON endpoints with 401 when signed out", async () => {
    expect((await request(app.base).get("/app/my-exams")).status).toBe(401);
    expect((await request(app.base).get("/app/me")).status).toBe(401);
  });

  it("never puts a password into req.user (what the plugin and pages see)", async () => {
    const ana = await app.loggedIn("ana");
    const me = await ana.get("/app/me");
    expect(me.body.data).toEqual({
      id: "u_ana", username: "ana", role: "student", name: "Ana Lima", email: "ana.lima@example.edu", school: { id: "north", name: "North High" },
    });
    expect(JSON.stringify(app.users.all())).not.toContain(PASSWORD);
  });
});
