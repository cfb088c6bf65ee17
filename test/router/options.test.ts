import { describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, oralAssessments, type OralStore } from "../../src/index.js";
import { assertNoKey } from "../support/canary.js";
import { TEST_KEY } from "../support/keys.js";

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });

function problemsOf(fn: () => unknown): { option: string; message: string; fix: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    assertNoKey(error, "the configuration error");
    return [...(error as ConfigurationError).problems];
  }
  throw new Error("expected a ConfigurationError");
}

describe("oralAssessments() options", () => {
  it("lists every problem at once, each with a fix", () => {
    const problems = problemsOf(() => oralAssessments({
      platform: undefined as never,
      examHost: "http://exams.example.edu/path",
      ticketParam: "bad param!",
      loginUrl: "//evil.example/login",
      store: { init: async () => {} } as unknown as OralStore,
      isInstructor: "yes" as never,
      listCacheMs: -1,
    }));
    expect(problems.map((p) => p.option).sort()).toEqual(["examHost", "isInstructor", "listCacheMs", "loginUrl", "platform", "store", "ticketParam"]);
    for (const p of problems) expect(p.fix.length).toBeGreaterThan(5);
  });

  it("accepts homeUrl as a path on this site or an absolute http(s) URL, and renderPage as a function", () => {
    const bad = problemsOf(() => oralAssessments({ platform, homeUrl: "//evil.example", renderPage: "layout.html" as never }));
    expect(bad.map((p) => p.option).sort()).toEqual(["homeUrl", "renderPage"]);
    for (const homeUrl of ["javascript:alert(1)", "/\\evil.example", "home", "/a\nb", 42 as never]) {
      expect(problemsOf(() => oralAssessments({ platform, homeUrl })).map((p) => p.option), String(homeUrl)).toEqual(["homeUrl"]);
    }
    for (const homeUrl of ["/", "/dashboard?tab=exams", "https://portal.example.edu/home", "http://localhost:3000/"]) {
      expect(() => oralAssessments({ platform, homeUrl, renderPage: () => {} }), homeUrl).not.toThrow();
    }
  });

  it("requires https for examHost except on localhost, and an origin only", () => {
    expect(problemsOf(() => oralAssessments({ platform, examHost: "http://exams.example.edu" }))[0]?.message).toMatch(/https/);
    expect(problemsOf(() => oralAssessments({ platform, examHost: "https://exams.example.edu/x?y" }))[0]?.message).toMatch(/origin only/);
    expect(() => oralAssessments({ platform, examHost: "http://localhost:4000" })).not.toThrow();
    expect(() => oralAssessments({ platform, examHost: "https://exams.example.edu/" })).not.toThrow();
  });
});
