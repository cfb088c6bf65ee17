/**
 * The example app's own behaviour (login, role redirects, returnTo, roster, two schools,
 * start-up configuration), over real HTTP against an embedded emulator hosting both schools. The app loads the package
 * by its name, i.e. from dist/ (built by global-setup), like an integrator's app would.
 */
import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError, memoryStore } from "express-oral-assessments";
import { startEmulator, type Emulator } from "express-oral-assessments/emulator";
import { createExampleApp, safeReturnTo, type ExampleSchool } from "../example-app/app.js";
import { SCHOOLS } from "../example-app/schools.js";
import { createDemoUsers } from "../example-app/users.js";
import { readHtml } from "./support/html-page.js";
import { LIVE_KEY, TEST_KEY } from "./support/keys.js";

const PASSWORD = "correct horse battery staple";
const users = createDemoUsers({ password: PASSWORD });

let emulator: Emulator;
let schools: ExampleSchool[];
let server: Server;
let base: string;

beforeAll(async () => {
  // North High on this run's canary key; South College on a key of the emulator's own.
  emulator = await startEmulator({ port: 0, organizations: [{ ...SCHOOLS[0]!, testKeys: [TEST_KEY] }, { ...SCHOOLS[1]! }] });
  schools = SCHOOLS.map(({ id, name }) => ({ id, name, apiKey: emulator.organization(id).testKey, baseUrl: emulator.url, examHost: emulator.organization(id).examHost }));
  const app = createExampleApp({ schools, store: memoryStore(), users });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await emulator?.close();
});

async function loggedIn(username: string) {
  const agent = request.agent(base);
  const res = await agent.post("/login").type("form").send({ username, password: PASSWORD });
  expect(res.status).toBe(303);
  return agent;
}

describe("login", () => {
  it("sends an instructor to the dashboard and a student to their page", async () => {
    const instructor = await request(base).post("/login").type("form").send({ username: "instructor", password: PASSWORD });
    expect(instructor.status).toBe(303);
    expect(instructor.headers.location).toBe("/dashboard");

    const student = await request(base).post("/login").type("form").send({ username: "ana", password: PASSWORD });
    expect(student.status).toBe(303);
    expect(student.headers.location).toBe("/student");
  });

  it("refuses a wrong password and keeps a safe returnTo for the next try", async () => {
    const res = await request(base).post("/login").type("form")
      .send({ username: "ana", password: "nope", returnTo: "/oral/launch/abc" });
    expect(res.status).toBe(303);
    const next = new URL(String(res.headers.location), base);
    expect(next.pathname).toBe("/login");
    expect(next.searchParams.get("error")).toBe("1");
    expect(next.searchParams.get("returnTo")).toBe("/oral/launch/abc");
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("honours a relative returnTo through a same-site /continue page (not a redirect chain from the form)", async () => {
    const agent = request.agent(base);
    const res = await agent.post("/login").type("form")
      .send({ username: "ben", password: PASSWORD, returnTo: "/oral/launch/exam_1?x=1&y=<2>" });
    expect(res.status).toBe(303);
    const next = new URL(String(res.headers.location), base);
    expect(next.pathname).toBe("/continue");
    const page = await agent.get(next.pathname + next.search);
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("form-action 'self'");
    expect(page.text).toContain('<a id="continue" href="/oral/launch/exam_1?x=1&#38;y=%3C2%3E">');
    expect(page.text).toContain('src="/assets/continue.js"');
  });

  it("/continue never leaves the site and needs a login", async () => {
    const agent = await loggedIn("ana");
    const evil = await agent.get(`/continue?to=${encodeURIComponent("/.//evil.example")}`);
    expect(evil.text).toContain('href="/student"');
    const signedOut = await request(base).get("/continue?to=%2Fstudent");
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.location).toMatch(/^\/login\?returnTo=/);
  });

  it.each(["/oral/launch/exam_1", "/.//evil.example", "/a/..//evil.example", "https://evil.example/"])(
    "sends a signed-in user on the login page home, never on to returnTo=%j (Back after a launch must not launch again)",
    async (returnTo) => {
      const agent = await loggedIn("ana");
      const res = await agent.get(`/login?returnTo=${encodeURIComponent(returnTo)}`);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe("/student");
    },
  );

  it.each([
    "https://evil.example/phish", "//evil.example/phish", "/\\evil.example", "\\\\evil.example",
    "javascript:alert(1)", "evil.example", "/ok\r\nSet-Cookie: x=1", "",
  ])("ignores a returnTo that is not a path on this site: %j", async (returnTo) => {
    const res = await request(base).post("/login").type("form").send({ username: "ana", password: PASSWORD, returnTo });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/student");
  });

  it("safeReturnTo keeps paths and drops everything that leaves the site", () => {
    expect(safeReturnTo("/dashboard")).toBe("/dashboard");
    expect(safeReturnTo("/oral/launch/a%2Fb")).toBe("/oral/launch/a%2Fb");
    expect(safeReturnTo("//x.example")).toBeUndefined();
    expect(safeReturnTo("/\tx")).toBeUndefined();
    expect(safeReturnTo(["/a"])).toBeUndefined();
    expect(safeReturnTo("/.//evil.example")).toBeUndefined();
    expect(safeReturnTo("/a/..//evil.example/x")).toBeUndefined();
    expect(safeReturnTo("/a/../b")).toBe("/b");
  });

  it("refuses a login posted from another site (login CSRF), accepts its own origin", async () => {
    const foreign = await request(base).post("/login").set("Origin", "https://evil.example").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(foreign.status).toBe(403);
    expect(foreign.headers["set-cookie"]).toBeUndefined();
    const opaque = await request(base).post("/login").set("Origin", "null").type("form").send({ username: "ana", password: PASSWORD });
    expect(opaque.status).toBe(403);
    const crossSite = await request(base).post("/login").set("Sec-Fetch-Site", "cross-site").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(crossSite.status).toBe(403);
    const own = await request(base).post("/login").set("Origin", base).set("Sec-Fetch-Site", "same-origin").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(own.status).toBe(303);
    expect(own.headers.location).toBe("/student");
  });

  it("sends a signed-out launch to /login?returnTo=… and back after login", async () => {
    const launch = await request(base).get("/oral/launch/exam_123");
    expect(launch.status).toBe(303);
    expect(launch.headers.location).toBe(`/login?returnTo=${encodeURIComponent("/oral/launch/exam_123")}`);

    const page = await request(base).get(String(launch.headers.location));
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="returnTo"');
  });

  it("logs out with POST /logout, after which pages ask for a login again", async () => {
    const agent = await loggedIn("instructor");
    expect((await agent.get("/dashboard")).status).toBe(200);
    const out = await agent.post("/logout");
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe("/login");
    const again = await agent.get("/dashboard");
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe("/login?returnTo=%2Fdashboard");
  });
});

describe("pages and roles", () => {
  it("shows the dashboard to the instructor only", async () => {
    const student = await loggedIn("ana");
    const refused = await student.get("/dashboard");
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("for instructors");

    const instructor = await loggedIn("instructor");
    const page = await instructor.get("/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.text).toContain('id="course-form"');
  });

  it("lets the plugin's instructor API refuse students (403) and signed-out callers (401)", async () => {
    expect((await request(base).get("/oral/courses")).status).toBe(401);
    const student = await loggedIn("ben");
    const res = await student.post("/oral/courses").send({ name: "Nope" });
    expect(res.status).toBe(403);
    expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
  });

  it("lists a student's exams from the roster: enrolled students see them, the outsider does not", async () => {
    const instructor = await loggedIn("instructor");
    const course = await instructor.post("/oral/courses").send({ name: "Roster course" });
    expect(course.status).toBe(201);
    const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`)
      .send({ name: "Group R", startDate: "2026-09-01", endDate: "2026-12-20" });
    expect(cls.status).toBe(201);
    const exam = await instructor.post("/oral/oral-assessments")
      .send({ name: "Roster exam", classId: cls.body.data._id, questions: [{ text: "Why?" }] });
    expect(exam.status).toBe(201);
    const examId: string = exam.body.data._id;

    const ana = await loggedIn("ana");
    const mine = await ana.get("/app/my-exams");
    expect(mine.status).toBe(200);
    expect(mine.body.data).toContainEqual(expect.objectContaining({
      examId, name: "Roster exam", className: "Group R", courseName: "Roster course", launchUrl: `/oral/launch/${examId}`,
    }));

    const outsider = await loggedIn("outsider");
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
    expect(launched.headers.location).toMatch(new RegExp(`^${emulator.examHost}/exam/${examId}\\?__clerk_ticket=`));
  });

  it("edits and deletes a class and an assessment, and a student launches a role-play from their page", async () => {
    const instructor = await loggedIn("instructor");
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

    const ana = await loggedIn("ana");
    const mine = (await ana.get("/app/my-exams")).body.data;
    expect(mine).toContainEqual(expect.objectContaining({ examId: roleplayId, kind: "roleplay", launchUrl: `/oral/launch/roleplay/${roleplayId}` }));
    const launched = await ana.get(`/oral/launch/roleplay/${roleplayId}`);
    expect(launched.status).toBe(303);
    expect(launched.headers.location).toMatch(new RegExp(`^${emulator.examHost}/exam/${roleplayId}/roleplay\\?__clerk_ticket=`));

    expect((await instructor.delete(`/oral/oral-assessments/${examId}`)).status).toBe(204);
    expect((await ana.get("/app/my-exams")).body.data.map((e: { examId: string }) => e.examId)).not.toContain(examId);
    const gone = await ana.get(`/oral/launch/${examId}`);
    expect(gone.status).toBe(404);
    expect(gone.headers["content-type"]).toMatch(/text\/html/);

    expect((await instructor.delete(`/oral/courses/${courseId}/classes/${classId}`)).status).toBe(204);
    expect((await ana.get(`/oral/launch/roleplay/${roleplayId}`)).status).toBe(404);
  });

  it("tells an instructor who opens a student launch link what it is for (not \"ask your instructor\"), with no sign-in call", async () => {
    const instructor = await loggedIn("instructor");
    const course = await instructor.post("/oral/courses").send({ name: "Open course" });
    const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`).send({ name: "Group O" });
    const exam = await instructor.post("/oral/oral-assessments").send({ name: "Open exam", classId: cls.body.data._id });
    expect(exam.status).toBe(201);
    const signInCalls = () => emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).length;
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
    const outsider = await loggedIn("outsider");
    const refused = await outsider.get(`/oral/launch/${exam.body.data._id}`);
    expect(readHtml(refused.text).headings).toEqual(["You cannot take this exam"]);
  });

  it("answers the app's JSON endpoints with 401 when signed out", async () => {
    expect((await request(base).get("/app/my-exams")).status).toBe(401);
    expect((await request(base).get("/app/me")).status).toBe(401);
  });

  it("never puts a password into req.user (what the plugin and pages see)", async () => {
    const ana = await loggedIn("ana");
    const me = await ana.get("/app/me");
    expect(me.body.data).toEqual({
      id: "u_ana", username: "ana", role: "student", name: "Ana Lima", email: "ana.lima@example.edu", school: { id: "north", name: "North High" },
    });
    expect(JSON.stringify(users.all())).not.toContain(PASSWORD);
  });
});

describe("two schools", () => {
  const signInCalls = () => emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).length;

  /** A course, a class and an oral assessment, made by the school's instructor through the plugin's API. */
  async function examOf(instructor: string, label: string) {
    const agent = await loggedIn(instructor);
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
      createExampleApp({ schools: [{ ...schools[0]!, apiKey: "" }, { ...schools[1]!, id: "north" }], users });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const message = String((error as Error).message);
    expect(message).toContain("schools[0].apiKey: is missing.");
    expect(message).toContain("schools: has two schools with the same id.");
    expect(message).not.toContain(schools[1]!.apiKey);
    expect(() => createExampleApp({ schools: [], users })).toThrow(/schools: must be a non-empty array/);
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
    const northHost = emulator.organization("north").examHost;
    const southHost = emulator.organization("south").examHost;
    expect(northHost).not.toBe(southHost);

    const ana = await (await loggedIn("ana")).get(`/oral/launch/${north.examId}`);
    expect(ana.status).toBe(303);
    expect(ana.headers.location).toMatch(new RegExp(`^${northHost}/exam/${north.examId}\\?__clerk_ticket=`));
    const sam = await (await loggedIn("sam")).get(`/oral/launch/${south.examId}`);
    expect(sam.status).toBe(303);
    expect(sam.headers.location).toMatch(new RegExp(`^${southHost}/exam/${south.examId}\\?__clerk_ticket=`));
    // Each sign-in was asked with the student's own school's key.
    const signIns = emulator.requests.filter((r) => r.path.endsWith("/students/sign-in-token")).slice(-2);
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
      const res = await (await loggedIn(student)).get(`/oral/launch/${examId}`);
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

  // Needs the store scoped by organization, as the 404 above (app.js, /app/my-exams).
  it("lists on a student's page the exams of their own school only", async () => {
    const north = await examOf("instructor", "North page");
    const south = await examOf("professor", "South page");
    const examsOf = async (student: string) =>
      ((await (await loggedIn(student)).get("/app/my-exams")).body.data as { examId: string }[]).map((e) => e.examId);
    const ana = await examsOf("ana");
    const sam = await examsOf("sam");
    expect(ana).toContain(north.examId);
    expect(ana).not.toContain(south.examId);
    expect(sam).toContain(south.examId);
    expect(sam).not.toContain(north.examId);
  });
});

describe("session cookie", () => {
  async function startApp(options: { trustProxy?: boolean }) {
    const app = createExampleApp({ schools, store: memoryStore(), users, ...options });
    const srv = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => srv.once("listening", resolve));
    return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, close: () => { srv.closeAllConnections(); srv.close(); } };
  }
  const cookieOf = (res: request.Response) => String((res.headers["set-cookie"] as unknown as string[] | undefined)?.find((c) => c.startsWith("example.sid=")));

  it("is Secure when a trusted proxy says the request came over https, and not over plain http", async () => {
    const proxied = await startApp({ trustProxy: true });
    try {
      const https = await request(proxied.url).post("/login").set("X-Forwarded-Proto", "https").type("form").send({ username: "ana", password: PASSWORD });
      expect(https.status).toBe(303);
      expect(cookieOf(https)).toMatch(/;\s*Secure/i);
      expect(cookieOf(https)).toMatch(/;\s*HttpOnly/i);
      const http = await request(proxied.url).post("/login").type("form").send({ username: "ana", password: PASSWORD });
      expect(cookieOf(http)).toMatch(/^example\.sid=/);
      expect(cookieOf(http)).not.toMatch(/;\s*Secure/i);
    } finally {
      proxied.close();
    }
  });

  it("ignores X-Forwarded-Proto unless told it is behind a proxy (a client cannot fake https)", async () => {
    const res = await request(base).post("/login").set("X-Forwarded-Proto", "https").type("form").send({ username: "ana", password: PASSWORD });
    expect(cookieOf(res)).toMatch(/^example\.sid=/);
    expect(cookieOf(res)).not.toMatch(/;\s*Secure/i);
  });
});

describe("server.js start-up", () => {
  function runServer(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["example-app/server.js"], {
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
      child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
      const timer = setTimeout(() => { child.kill("SIGKILL"); reject(new Error("server.js did not exit within 15 s")); }, 15_000);
      child.on("error", reject);
      child.on("exit", (code) => { clearTimeout(timer); resolve({ code, output }); });
    });
  }

  it("stops at start (exit 1) with the client's ConfigurationError when the key is for the other environment", async () => {
    const { code, output } = await runServer({
      ORAL_API_KEY: LIVE_KEY, ORAL_ENV: "dev", ORAL_BASE_URL: "https://platform.example.com", PORT: "0",
    });
    expect(code).toBe(1);
    expect(output).toContain("createPlatformClient is misconfigured");
    expect(output).toMatch(/env: is "dev" but the key svc_live_…\S{4} is a live key/);
    // Never the key itself: only its redacted form.
    expect(output).not.toContain(LIVE_KEY);
    expect(output).not.toContain(LIVE_KEY.slice(9, 20));
  });

  it("reports every missing setting at once when only part of the real-platform configuration is set", async () => {
    const { code, output } = await runServer({ ORAL_EXAM_HOST: "https://exams.example.edu", PORT: "0" });
    expect(code).toBe(1);
    expect(output).toContain("apiKey: is missing");
    expect(output).toContain("baseUrl: is missing");
  });

  /** The last demo login of the banner: everything after it is the log. */
  const BANNER_END = /\n {4}tia +\S+ +[^\n]*\n/;

  it("starts with the embedded emulator and prints the URL and the demo logins of both schools", async () => {
    const child = spawn(process.execPath, ["example-app/server.js"], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", PORT: "0", DEMO_PASSWORD: "demo-pass" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner within 15 s:\n${output}`)), 15_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString("utf8");
          if (BANNER_END.test(output)) { clearTimeout(timer); resolve(); }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`exited with ${code}:\n${output}`)); });
      });
      const url = /Example app: +(http:\/\/\S+)/.exec(output)?.[1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(output).toContain("embedded emulator");
      expect(output).toMatch(/LMS: +http:\/\/localhost:\d+\/course\?user=instructor-1 [^\n]*\n +http:\/\/localhost:\d+\/add-exam\?user=instructor-1 /);
      const lmsUrl = /LMS: +(http:\/\/\S+)/.exec(output)![1]!;
      expect((await request(new URL(lmsUrl).origin).get("/course?user=instructor-1")).text).toContain("Add an oral exam");
      expect(output).toMatch(/instructor +demo-pass/);
      expect(output).toMatch(/North High\n {4}instructor[\s\S]*South College\n {4}professor +demo-pass/);
      const res = await request(url!).post("/login").type("form").send({ username: "instructor", password: "demo-pass" });
      expect(res.headers.location).toBe("/dashboard");

      // A launch is logged by pino as one JSON line (not a multi-line object dump).
      const instructor = request.agent(url!);
      await instructor.post("/login").type("form").send({ username: "instructor", password: "demo-pass" });
      const course = await instructor.post("/oral/courses").send({ name: "Logged course" });
      const cls = await instructor.post(`/oral/courses/${course.body.data._id}/classes`)
        .send({ name: "Group L", startDate: "2026-09-01", endDate: "2026-12-20" });
      const exam = await instructor.post("/oral/oral-assessments").send({ name: "Logged exam", classId: cls.body.data._id, questions: [{ text: "Why?" }] });
      const ana = request.agent(url!);
      await ana.post("/login").type("form").send({ username: "ana", password: "demo-pass" });
      expect((await ana.get(`/oral/launch/${exam.body.data._id}`)).status).toBe(303);
      await expect.poll(() => output.includes('"event":"launch"'), { timeout: 5_000 }).toBe(true);
      const logLines = output.slice(BANNER_END.exec(output)!.index + 1).split("\n").slice(1).filter((line) => line.trim() !== "");
      expect(logLines.length).toBeGreaterThan(0);
      for (const line of logLines) expect(() => JSON.parse(line), line).not.toThrow();
      const launch = logLines.map((line) => JSON.parse(line)).find((entry) => entry.event === "launch");
      expect(launch).toMatchObject({ outcome: "redirected", status: 303, examId: exam.body.data._id, msg: "launch redirected" });
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });
});
