/**
 * `node example-app/server.js` as `npm start` runs it (after the build): stops at start with
 * the configuration's problems and never the key, and starts with the embedded emulator,
 * printing the URL, the LMS's pages and the demo logins, and logging as JSON lines.
 */
import { spawn } from "node:child_process";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { LIVE_KEY } from "../support/keys.js";

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
