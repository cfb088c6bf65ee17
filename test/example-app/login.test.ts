/**
 * The example app's login (over real HTTP, the app on an embedded emulator): role
 * redirects, a wrong password, returnTo kept only when it is a path on this site (through
 * the /continue page), login CSRF, a signed-out launch sent to the login page and back, and
 * logout.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { safeReturnTo } from "../../example-app/app.js";
import { PASSWORD, useExampleApp } from "../support/example-app.js";

const app = useExampleApp();

describe("login", () => {
  it("sends an instructor to the dashboard and a student to their page", async () => {
    const instructor = await request(app.base).post("/login").type("form").send({ username: "instructor", password: PASSWORD });
    expect(instructor.status).toBe(303);
    expect(instructor.headers.location).toBe("/dashboard");

    const student = await request(app.base).post("/login").type("form").send({ username: "ana", password: PASSWORD });
    expect(student.status).toBe(303);
    expect(student.headers.location).toBe("/student");
  });

  it("refuses a wrong password and keeps a safe returnTo for the next try", async () => {
    const res = await request(app.base).post("/login").type("form")
      .send({ username: "ana", password: "nope", returnTo: "/oral/launch/abc" });
    expect(res.status).toBe(303);
    const next = new URL(String(res.headers.location), app.base);
    expect(next.pathname).toBe("/login");
    expect(next.searchParams.get("error")).toBe("1");
    expect(next.searchParams.get("returnTo")).toBe("/oral/launch/abc");
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("honours a relative returnTo through a same-site /continue page (not a redirect chain from the form)", async () => {
    const agent = request.agent(app.base);
    const res = await agent.post("/login").type("form")
      .send({ username: "ben", password: PASSWORD, returnTo: "/oral/launch/exam_1?x=1&y=<2>" });
    expect(res.status).toBe(303);
    const next = new URL(String(res.headers.location), app.base);
    expect(next.pathname).toBe("/continue");
    const page = await agent.get(next.pathname + next.search);
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("form-action 'self'");
    expect(page.text).toContain('<a id="continue" href="/oral/launch/exam_1?x=1&#38;y=%3C2%3E">');
    expect(page.text).toContain('src="/assets/continue.js"');
  });

  it("/continue never leaves the site and needs a login", async () => {
    const agent = await app.loggedIn("ana");
    const evil = await agent.get(`/continue?to=${encodeURIComponent("/.//evil.example")}`);
    expect(evil.text).toContain('href="/student"');
    const signedOut = await request(app.base).get("/continue?to=%2Fstudent");
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.location).toMatch(/^\/login\?returnTo=/);
  });

  it.each(["/oral/launch/exam_1", "/.//evil.example", "/a/..//evil.example", "https://evil.example/"])(
    "sends a signed-in user on the login page home, never on to returnTo=%j (Back after a launch must not launch again)",
    async (returnTo) => {
      const agent = await app.loggedIn("ana");
      const res = await agent.get(`/login?returnTo=${encodeURIComponent(returnTo)}`);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe("/student");
    },
  );

  it.each([
    "https://evil.example/phish", "//evil.example/phish", "/\\evil.example", "\\\\evil.example",
    "javascript:alert(1)", "evil.example", "/ok\r\nSet-Cookie: x=1", "",
  ])("ignores a returnTo that is not a path on this site: %j", async (returnTo) => {
    const res = await request(app.base).post("/login").type("form").send({ username: "ana", password: PASSWORD, returnTo });
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
    const foreign = await request(app.base).post("/login").set("Origin", "https://evil.example").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(foreign.status).toBe(403);
    expect(foreign.headers["set-cookie"]).toBeUndefined();
    const opaque = await request(app.base).post("/login").set("Origin", "null").type("form").send({ username: "ana", password: PASSWORD });
    expect(opaque.status).toBe(403);
    const crossSite = await request(app.base).post("/login").set("Sec-Fetch-Site", "cross-site").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(crossSite.status).toBe(403);
    const opaqueCrossSite = await request(app.base).post("/login").set("Origin", "null").set("Sec-Fetch-Site", "cross-site").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(opaqueCrossSite.status).toBe(403);
    // A form on a page sent with a strict referrer policy: the browser says same-origin, Origin is null.
    const strictPage = await request(app.base).post("/login").set("Origin", "null").set("Sec-Fetch-Site", "same-origin").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(strictPage.status).toBe(303);
    const own = await request(app.base).post("/login").set("Origin", app.base).set("Sec-Fetch-Site", "same-origin").type("form")
      .send({ username: "ana", password: PASSWORD });
    expect(own.status).toBe(303);
    expect(own.headers.location).toBe("/student");
  });

  it("sends a signed-out launch to /login?returnTo=… and back after login", async () => {
    const launch = await request(app.base).get("/oral/launch/exam_123");
    expect(launch.status).toBe(303);
    expect(launch.headers.location).toBe(`/login?returnTo=${encodeURIComponent("/oral/launch/exam_123")}`);

    const page = await request(app.base).get(String(launch.headers.location));
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="returnTo"');
  });

  it("logs out with POST /logout, after which pages ask for a login again", async () => {
    const agent = await app.loggedIn("instructor");
    expect((await agent.get("/dashboard")).status).toBe(200);
    const out = await agent.post("/logout");
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe("/login");
    const again = await agent.get("/dashboard");
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe("/login?returnTo=%2Fdashboard");
  });
});
