/**
 * `lti.loginLimit` is the per-address bucket itself, `{ burst, refillMs }`. Its earlier
 * spellings still work and say so at start-up (a warn line on the router's logger each
 * time a router is built with one, one DeprecationWarning per process and name, naming
 * what to write instead): `perAddress` (the same bucket one level down) limits logins as
 * before, `perRegistration` does nothing. Both spellings of the bucket at once, or a wrong
 * value of either, is a ConfigurationError. Logins are counted over HTTP, from the LMS
 * emulator's login URL to the tool on a real server.
 */
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments, type LtiOptions } from "../../src/index.js";
import { captureLogger } from "../support/canary.js";
import { TEST_KEY } from "../support/keys.js";
import { startLtiBench, TOOL_KEY_PEM, type LtiBench } from "../support/lti.js";

/** Every warning of this process, from the start: the DeprecationWarning comes once, whichever test builds a router first. */
const warnings: (Error & { code?: string })[] = [];
process.on("warning", (w) => warnings.push(w));
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

async function bench(loginLimit: object): Promise<LtiBench> {
  const b = await startLtiBench({ loginLimit } as Partial<LtiOptions>);
  cleanups.push(() => b.close());
  return b;
}

/** The statuses of `n` logins in a row from one browser (one address: the loopback). */
async function logins(b: LtiBench, n: number): Promise<number[]> {
  const statuses = [];
  for (let i = 0; i < n; i++) {
    const url = new URL(b.lms.loginUrl("student-1", b.linkId));
    statuses.push((await request(url.origin).get(url.pathname + url.search)).status);
  }
  return statuses;
}

const deprecations = (b: LtiBench) => b.stack.logger.lines.filter((l) => l.level === "warn" && l.obj.event === "router_option_deprecated");

describe("lti.loginLimit's earlier spellings", () => {
  it("perAddress limits logins as burst and refillMs on loginLimit itself do, and warns naming them", async () => {
    const current = await bench({ burst: 2, refillMs: 3_600_000 });
    expect(await logins(current, 3)).toEqual([302, 302, 429]);
    expect(deprecations(current)).toEqual([]);

    const earlier = await bench({ perAddress: { burst: 2, refillMs: 3_600_000 } });
    expect(await logins(earlier, 3)).toEqual([302, 302, 429]);
    const warned = deprecations(earlier);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.obj).toMatchObject({ option: "lti.loginLimit.perAddress", use: "lti.loginLimit.burst and lti.loginLimit.refillMs" });
    expect(warned[0]!.msg).toMatch(/perAddress is deprecated.*lti\.loginLimit: \{ burst, refillMs \}/);
  });

  it("perRegistration refuses nothing, and warns that it does nothing", async () => {
    const b = await bench({ burst: 4, perRegistration: { burst: 1, refillMs: 3_600_000 } });
    expect(await logins(b, 4)).toEqual([302, 302, 302, 302]);
    const warned = deprecations(b);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.obj).toMatchObject({ option: "lti.loginLimit.perRegistration", use: "nothing (leave it out)" });
    expect(warned[0]!.msg).toMatch(/perRegistration is deprecated and does nothing.*per client address only/);
  });

  it("one DeprecationWarning per process and name, however many routers use it", async () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    const registration = { issuer: "https://lms.example", clientId: "c", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks", deployments: ["d"] };
    for (let i = 0; i < 3; i++) {
      const router = oralAssessments({
        platform, canLaunch: "any-signed-in-user", store: memoryStore(), logger: captureLogger(),
        lti: { keys: [{ kid: "k", privateKey: TOOL_KEY_PEM }], registrations: [registration], loginLimit: { perAddress: { burst: 9 }, perRegistration: {} } },
      });
      cleanups.push(() => router.close());
    }
    await new Promise((r) => setImmediate(r));
    const ours = warnings.filter((w) => w.name === "DeprecationWarning" && /loginLimit/.test(w.message));
    expect(ours.map((w) => w.code).sort()).toEqual(["EOA_LTI_LOGIN_PER_ADDRESS", "EOA_LTI_LOGIN_PER_REGISTRATION"]);
    expect(ours.find((w) => w.code === "EOA_LTI_LOGIN_PER_ADDRESS")!.message).toContain("lti.loginLimit: { burst, refillMs }");
  });

  it("both spellings of the bucket, or a wrong value of either, is a ConfigurationError naming the field", () => {
    const problemsOf = (loginLimit: object) => {
      const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
      const registration = { issuer: "https://lms.example", clientId: "c", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks", deployments: ["d"] };
      try {
        const router = oralAssessments({ platform, canLaunch: "any-signed-in-user", store: memoryStore(), logger: captureLogger(),
          lti: { keys: [{ kid: "k", privateKey: TOOL_KEY_PEM }], registrations: [registration], loginLimit } as LtiOptions });
        cleanups.push(() => router.close());
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as ConfigurationError).problems.map((p) => `${p.option} ${p.message}`);
      }
      return [];
    };
    expect(problemsOf({ burst: 0 })).toEqual(["lti.loginLimit.burst must be a whole number ≥ 1, got 0."]);
    expect(problemsOf({ perAddress: { refillMs: -1 } })).toEqual(["lti.loginLimit.perAddress.refillMs must be a whole number of ms ≥ 1, got -1."]);
    const both = "lti.loginLimit.perAddress is the deprecated spelling of lti.loginLimit's own burst and refillMs, and both are set.";
    expect(problemsOf({ burst: 5, perAddress: { burst: 5 } })).toEqual([both]);
    expect(problemsOf({ refillMs: 0, perAddress: { burst: 5 } })).toEqual(["lti.loginLimit.refillMs must be a whole number of ms ≥ 1, got 0.", both]);
  });
});
