/**
 * A refused launch's log line reaches the console with the default (silent) logger
 * (issue 27.10): the refusal page tells the LMS administrator to look for it. One
 * `console.warn` line naming the check, never the posted token; with a `logger` option,
 * the line goes there and nothing to the console.
 */
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { linkCourse, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

let quiet: LtiBench;
let logged: LtiBench;
beforeAll(async () => {
  quiet = await startLtiBench({}, { router: { logger: undefined } });
  await linkCourse(quiet);
  logged = await startLtiBench();
});
afterAll(async () => {
  await quiet.close();
  await logged.close();
});
afterEach(() => vi.restoreAllMocks());

describe("a refused LTI launch with the default logger", () => {
  it("writes one console line naming the check, without the token", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const { launch } = await walkLaunch(quiet, "student-1", { withCookie: true });
    expect(launch.status).toBe(200);
    const token = "eyJhbGciOiJSUzI1NiJ9.eyJzZWNyZXQiOiJ0b2tlbiJ9.c2lnbmF0dXJl";
    const res = await request(quiet.stack.app.url).post("/oral/lti/launch").type("form").send({ id_token: token, state: "no-such-state" });
    expect(res.status).toBe(400);
    const lines = warn.mock.calls.map((c) => String(c[0]));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("LTI launch refused: state");
    expect(lines[0]).toContain('"event":"lti_refused"');
    expect(lines[0]).not.toContain(token);
  });

  it("goes to the app's logger, and not the console, when one is given", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const res = await request(logged.stack.app.url).post("/oral/lti/launch").type("form").send({ id_token: "x.y.z", state: "no-such-state" });
    expect(res.status).toBe(400);
    expect(warn).not.toHaveBeenCalled();
    expect(logged.stack.logger.lines.some((l) => l.obj.event === "lti_refused" && l.obj.check === "state")).toBe(true);
  });
});
