import { describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments, type OralStore } from "../../src/index.js";
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
      canLaunch: "anyone" as never,
      platform: undefined as never,
      examHost: "http://exams.example.edu/path",
      ticketParam: "bad param!",
      loginUrl: "//evil.example/login",
      store: { init: async () => {} } as unknown as OralStore,
      isInstructor: "yes" as never,
      listCacheMs: -1,
    }));
    expect(problems.map((p) => p.option).sort()).toEqual(["canLaunch", "examHost", "isInstructor", "listCacheMs", "loginUrl", "platform", "store", "ticketParam"]);
    for (const p of problems) expect(p.fix.length).toBeGreaterThan(5);
  });

  it("accepts homeUrl as a path on this site or an absolute http(s) URL, and renderPage as a function", () => {
    const bad = problemsOf(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, homeUrl: "//evil.example", renderPage: "layout.html" as never }));
    expect(bad.map((p) => p.option).sort()).toEqual(["homeUrl", "renderPage"]);
    for (const homeUrl of ["javascript:alert(1)", "/\\evil.example", "home", "/a\nb", 42 as never]) {
      expect(problemsOf(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, homeUrl })).map((p) => p.option), String(homeUrl)).toEqual(["homeUrl"]);
    }
    for (const homeUrl of ["/", "/dashboard?tab=exams", "https://portal.example.edu/home", "http://localhost:3000/"]) {
      expect(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, homeUrl, renderPage: () => {} }), homeUrl).not.toThrow();
    }
  });

  it("requires https for examHost except on localhost, and an origin only", () => {
    expect(problemsOf(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, examHost: "http://exams.example.edu" }))[0]?.message).toMatch(/https/);
    expect(problemsOf(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, examHost: "https://exams.example.edu/x?y" }))[0]?.message).toMatch(/origin only/);
    expect(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, examHost: "http://localhost:4000" })).not.toThrow();
    expect(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, examHost: "https://exams.example.edu/" })).not.toThrow();
  });

  it("has no silent canLaunch default: leaving it out is a configuration error naming both choices", () => {
    const [missing, ...others] = problemsOf(() => oralAssessments({ platform } as never));
    expect(others).toEqual([]);
    expect(missing?.option).toBe("canLaunch");
    expect(missing?.message).toMatch(/missing/);
    // The fix names the roster check and the explicit opt-in.
    expect(missing?.fix).toMatch(/roster/);
    expect(missing?.fix).toContain('canLaunch: "any-signed-in-user"');
    for (const wrong of ["any", "everyone", true, 1]) {
      expect(problemsOf(() => oralAssessments({ platform, canLaunch: wrong as never })).map((p) => p.option), String(wrong)).toEqual(["canLaunch"]);
    }
    expect(() => oralAssessments({ platform, canLaunch: "any-signed-in-user" })).not.toThrow();
    expect(() => oralAssessments({ platform, canLaunch: async () => false })).not.toThrow();
  });

  it("checks a custom store against every method of the store interface, deletes included", () => {
    const full = memoryStore() as unknown as Record<string, unknown>;
    const { deleteClass: _c, deleteAssessment: _a, ...withoutDeletes } = full;
    const [problem, ...others] = problemsOf(() => oralAssessments({ platform, canLaunch: "any-signed-in-user", store: withoutDeletes as unknown as OralStore }));
    expect(others).toEqual([]);
    expect(problem?.option).toBe("store");
    expect(problem?.message).toBe("does not implement OralStore (missing deleteClass, deleteAssessment).");
    expect(() => oralAssessments({ platform, canLaunch: "any-signed-in-user", store: memoryStore() })).not.toThrow();
  });

  it("reads launchLimit and circuitBreaker as redisFleet does: each wrong field named, a non-object once, the backoffs' order", () => {
    const problems = problemsOf(() => oralAssessments({
      platform, canLaunch: "any-signed-in-user",
      launchLimit: { burst: 0, failureBackoffMs: 5_000, maxFailureBackoffMs: 1_000 }, circuitBreaker: "fast" as never,
    }));
    expect(problems.map((p) => `${p.option}: ${p.message}`)).toEqual([
      "launchLimit.burst: must be a whole number ≥ 1, got 0.",
      "launchLimit.maxFailureBackoffMs: is shorter than failureBackoffMs.",
      "circuitBreaker: must be an object { minFailures, windowMs, openMs, probeLeaseMs, failureRatio }.",
    ]);
    expect(problems.map((p) => p.fix)).toEqual([
      "Leave it out for the default (3).",
      "Make it at least failureBackoffMs, or leave both out (2000 and 60000).",
      "Leave it out for the defaults (5 failures, half the calls, within 30 s; open 15 s).",
    ]);
  });

  it("names each resolver option set without organization", () => {
    const problems = problemsOf(() => oralAssessments({ platform, canLaunch: "any-signed-in-user", organizationCache: { max: 5 }, organizationClient: {} }));
    expect(problems.map((p) => `${p.option}: ${p.message}`))
      .toEqual(["organizationCache: is set without organization.", "organizationClient: is set without organization."]);
  });

  it("refuses an organizationCache that is not an object, or names a field it does not have", () => {
    const organization = async () => ({ id: "north", apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    const of = (organizationCache: unknown) =>
      problemsOf(() => oralAssessments({ organization, canLaunch: "any-signed-in-user", organizationCache } as never)).map((p) => `${p.option}: ${p.message}`);
    expect(of(5)).toEqual(["organizationCache: must be an object { max, idleMs }."]);
    expect(of({ maxx: 5, idleMs: 0 })).toEqual(["organizationCache.maxx: is not an option.", "organizationCache.idleMs: must be a whole number of ms ≥ 1, got 0."]);
  });
});
