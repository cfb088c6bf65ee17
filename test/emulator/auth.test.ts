import { startTestEmulator } from "../support/emulator.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { assertNoKey } from "../support/canary.js";
import { LIVE_KEY, TEST_KEY, WRONG_KEY } from "../support/keys.js";
import { COURSE, call, seed, student } from "./helpers.js";

const OTHER_ORG_KEY = `svc_test_other_${"x".repeat(24)}`;

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ otherOrgKeys: [OTHER_ORG_KEY] });
});
afterAll(() => emu.close());

describe("API keys", () => {
  it("accepts the test key on /dev and the live key on /prod", async () => {
    expect((await call(emu, "GET", "/courses", undefined, { env: "dev" })).status).toBe(200);
    expect((await call(emu, "GET", "/courses", undefined, { env: "prod" })).status).toBe(200);
  });

  it("answers 401 unauthorized with no Authorization header", async () => {
    const res = await call(emu, "GET", "/courses", undefined, { key: null });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    expect(res.body.meta.requestId).toMatch(/^req_/);
  });

  it("answers 401 for an unknown key without echoing it", async () => {
    const res = await call(emu, "GET", "/courses", undefined, { key: WRONG_KEY });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    assertNoKey(res.text, "the 401 body");
  });

  it("answers 401 for a malformed Authorization header", async () => {
    const res = await call(emu, "GET", "/courses", undefined, { key: null, headers: { Authorization: `Basic ${TEST_KEY}` } });
    expect(res.status).toBe(401);
    assertNoKey(res.text, "the 401 body");
  });

  it("answers 401 for a test key on /prod, explaining it is a dev key without echoing it", async () => {
    const res = await call(emu, "GET", "/courses", undefined, { env: "prod", key: TEST_KEY });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain("key is for the dev environment");
    assertNoKey(res.text, "the 401 body");
  });

  it("answers 401 for a live key on /dev, explaining it is a prod key", async () => {
    const res = await call(emu, "POST", "/courses", COURSE, { env: "dev", key: LIVE_KEY });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain("key is for the prod environment");
    assertNoKey(res.text, "the 401 body");
  });

  it("logs refused requests with their status but without the key", async () => {
    await call(emu, "GET", "/courses", undefined, { key: WRONG_KEY });
    expect(emu.requests.at(-1)).toMatchObject({ method: "GET", path: "/courses", env: "dev", status: 401 });
    assertNoKey(emu.requests, "the request log");
  });

  it("refuses bad emulator options with a ConfigurationError that shows keys redacted", async () => {
    const err = await startEmulator({ testKeys: [LIVE_KEY] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "ConfigurationError" });
    expect(String((err as Error).message)).toContain("testKeys[0]");
    assertNoKey(err, "the configuration error");
  });

  it("names a wrong rateLimits field and a rateLimits that is not an object, each with the vendor-default fix", async () => {
    const problemsOf = async (rateLimits: unknown) =>
      ((await startEmulator({ rateLimits } as never).catch((e: unknown) => e)) as { problems: unknown[] }).problems;
    expect(await problemsOf({ dev: -1 })).toEqual([
      { option: "rateLimits.dev", message: "must be a whole number ≥ 0, got -1.", fix: "Omit it for the vendor's default." },
    ]);
    expect(await problemsOf(5)).toEqual([
      { option: "rateLimits", message: "must be an object { dev, prod, windowMs }.", fix: "Omit it for the vendor's default." },
    ]);
  });
});

describe("organizations", () => {
  it("answers 403 forbidden when another organization's key reads, changes or uses a record", async () => {
    const { courseId, classId, examId } = await seed(emu);
    const other = { key: OTHER_ORG_KEY };
    for (const res of [
      await call(emu, "GET", `/courses/${courseId}`, undefined, other),
      await call(emu, "PUT", `/courses/${courseId}`, { name: "Mine now" }, other),
      await call(emu, "DELETE", `/courses/${courseId}`, undefined, other),
      await call(emu, "POST", `/courses/${courseId}/classes`, { name: "x" }, other),
      await call(emu, "GET", `/oral-assessments/${examId}`, undefined, other),
      await call(emu, "POST", "/oral-assessments", { name: "x", classId, questions: [{ text: "Q" }] }, other),
      await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId }, other),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
  });

  it("lists only the caller's organization's courses", async () => {
    await call(emu, "POST", "/courses", { name: "Theirs" }, { key: OTHER_ORG_KEY });
    const mine = await call(emu, "GET", "/courses");
    expect(mine.body.data.map((c: { name: string }) => c.name)).not.toContain("Theirs");
    const theirs = await call(emu, "GET", "/courses", undefined, { key: OTHER_ORG_KEY });
    expect(theirs.body.data.map((c: { name: string }) => c.name)).toEqual(["Theirs"]);
  });
});
