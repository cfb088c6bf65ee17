/**
 * Strict options: a name no options object knows is a configuration error at every level
 * (the router's own, its nested objects, `lti` and each registration, `redisFleet`, the
 * emulator), with the name meant when one is near ("did you mean"), else the list of
 * known names. And a router made without `isInstructor` says so at start-up.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments, redisFleet, type OralAssessmentsOptions } from "../../src/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import { closestName } from "../../src/core/option-schema.js";
import { TEST_KEY } from "../support/keys.js";
import { TOOL_KEY_PEM } from "../support/lti.js";
import { captureLogger } from "../support/canary.js";

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
const base = { platform, canLaunch: "any-signed-in-user", store: memoryStore(), isInstructor: () => true } satisfies OralAssessmentsOptions;
const registration = { issuer: "https://lms.example", clientId: "c", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks", deployments: ["d"] };

async function problemsOf(make: () => unknown): Promise<{ option: string; message: string; fix: string }[]> {
  try {
    await make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).problems.map(({ option, message, fix }) => ({ option, message, fix }));
  }
  throw new Error("expected a ConfigurationError");
}

describe("unknown option names", () => {
  it("oralAssessments({ …, loginURL }) throws naming loginUrl", async () => {
    const router = () => oralAssessments({ ...base, loginURL: "/x" } as OralAssessmentsOptions);
    expect(router).toThrow(ConfigurationError);
    expect(await problemsOf(router)).toEqual([{ option: "loginURL", message: "is not an option.", fix: "Did you mean `loginUrl`? Rename it." }]);
  });

  it("are refused inside every options object, each with the name meant", async () => {
    const problems = await problemsOf(() => oralAssessments({
      ...base,
      circuitBreaker: { openMS: 1_000 }, launchLimit: { brust: 3 }, prepare: { tokenTTLMs: 600_000 }, launchRecord: { retention_days: 30 },
      live: { maxStream: 10 },
      lti: { keys: [{ kid: "k", privateKey: TOOL_KEY_PEM }], registrations: [{ ...registration, tokenURL: "https://lms.example/token" }], stateTTLMs: 60_000 },
    } as unknown as OralAssessmentsOptions));
    expect(problems.map((p) => [p.option, p.fix])).toEqual(expect.arrayContaining([
      ["circuitBreaker.openMS", "Did you mean `openMs`? Rename it."],
      ["launchLimit.brust", "Did you mean `burst`? Rename it."],
      ["prepare.tokenTTLMs", "Did you mean `tokenTtlMs`? Rename it."],
      ["launchRecord.retention_days", "Did you mean `retentionDays`? Rename it."],
      ["live.maxStream", "Did you mean `maxStreams`? Rename it."],
      ["lti.stateTTLMs", "Did you mean `stateTtlMs`? Rename it."],
      ["lti.registrations[0].tokenURL", "Did you mean `tokenUrl`? Rename it."],
    ]));
    expect(problems).toHaveLength(7);
  });

  it("lists the known names when none is near", async () => {
    const [problem, ...rest] = await problemsOf(() => oralAssessments({ ...base, colour: "blue" } as OralAssessmentsOptions));
    expect(rest).toEqual([]);
    expect(problem!.option).toBe("colour");
    expect(problem!.fix).toMatch(/^Remove it; known options are lti, platform, .*loginUrl, homeUrl/);
  });

  it("are refused by redisFleet and the emulator too", async () => {
    expect((await problemsOf(() => redisFleet({ url: "redis://127.0.0.1:6379", secret: randomBytes(48).toString("base64"), prefx: "x" } as never))).map((p) => [p.option, p.fix]))
      .toEqual([["prefx", "Did you mean `prefix`? Rename it."]]);
    expect((await problemsOf(() => startEmulator({ prot: 0 } as never))).map((p) => [p.option, p.fix])).toEqual([["prot", "Did you mean `port`? Rename it."]]);
  });

  it("names the nearest only when it is near and alone", () => {
    expect(closestName("loginURL", ["loginUrl", "homeUrl"])).toBe("loginUrl");
    expect(closestName("login_url", ["loginUrl"])).toBe("loginUrl");
    expect(closestName("homeUrll", ["loginUrl", "homeUrl"])).toBe("homeUrl");
    expect(closestName("colour", ["loginUrl", "homeUrl"])).toBeUndefined();
    expect(closestName("brust", ["burst", "refillMs"])).toBe("burst");
    // Two names one edit away: neither is named.
    expect(closestName("maxA", ["maxB", "maxC"])).toBeUndefined();
  });
});

describe("a router without isInstructor", () => {
  it("says at start-up that no one can use the instructor API, with the fix; with isInstructor, says nothing", () => {
    const logger = captureLogger();
    oralAssessments({ platform, canLaunch: "any-signed-in-user", store: memoryStore(), logger });
    const line = logger.lines.find((l) => l.obj.event === "router_no_instructor");
    expect(line?.level).toBe("warn");
    expect(line?.msg).toContain("no one can use the instructor API");
    expect(String(line?.obj.fix)).toContain("isInstructor: (req) =>");
    const quiet = captureLogger();
    oralAssessments({ ...base, logger: quiet });
    expect(quiet.lines.some((l) => l.obj.event === "router_no_instructor")).toBe(false);
  });
});
