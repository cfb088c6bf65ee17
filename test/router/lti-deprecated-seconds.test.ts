/**
 * Every duration is in ms: `lti.clockToleranceMs`, `stateTtlMs`, `keySetCooldownMs`. The
 * earlier names in seconds still work (converted), warn at start-up (a warn line on the
 * router's logger each time, one DeprecationWarning per process and name), and passing
 * both names is a configuration error.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments } from "../../src/index.js";
import { resolveRouterOptions } from "../../src/router/settings.js";
import { captureLogger } from "../support/canary.js";
import { TEST_KEY } from "../support/keys.js";
import { TOOL_KEY_PEM } from "../support/lti.js";

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
const registration = { issuer: "https://lms.example", clientId: "c", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks", deployments: ["d"] };
const lti = (extra: object) => ({ keys: [{ kid: "k", privateKey: TOOL_KEY_PEM }], registrations: [registration], ...extra });
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

function problemsOf(extra: object): string[] {
  try {
    resolveRouterOptions({ platform, canLaunch: "any-signed-in-user", store: memoryStore(), lti: lti(extra) });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).problems.map((p) => p.option);
  }
  return [];
}

describe("LTI durations in ms, the seconds names deprecated", () => {
  it("reads the ms names, defaults in ms, and converts the seconds names", () => {
    const settings = (extra: object) => resolveRouterOptions({ platform, canLaunch: "any-signed-in-user", store: memoryStore(), lti: lti(extra) }).lti!;
    expect(settings({})).toMatchObject({ clockToleranceMs: 60_000, stateTtlMs: 600_000, keySetCooldownMs: 30_000 });
    expect(settings({ clockToleranceMs: 5_000, stateTtlMs: 90_000, keySetCooldownMs: 250 })).toMatchObject({ clockToleranceMs: 5_000, stateTtlMs: 90_000, keySetCooldownMs: 250 });
    expect(settings({ clockToleranceSec: 5, stateTtlSec: 90, keySetCooldownSec: 1 })).toMatchObject({ clockToleranceMs: 5_000, stateTtlMs: 90_000, keySetCooldownMs: 1_000 });
  });

  it("checks ranges in either unit, and refuses both names at once", () => {
    expect(problemsOf({ stateTtlMs: 600, clockToleranceMs: 300_001, keySetCooldownMs: 1.5 }).sort()).toEqual(["lti.clockToleranceMs", "lti.keySetCooldownMs", "lti.stateTtlMs"]);
    expect(problemsOf({ stateTtlSec: 600_000 })).toEqual(["lti.stateTtlSec"]);
    expect(problemsOf({ stateTtlSec: 600, stateTtlMs: 600_000 })).toEqual(["lti.stateTtlSec"]);
  });

  it("warns at start-up for each seconds name used, once per process as a DeprecationWarning", async () => {
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on("warning", listen);
    cleanups.push(() => process.off("warning", listen));
    const build = (extra: object) => {
      const logger = captureLogger();
      const router = oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), logger, lti: lti(extra) });
      cleanups.push(() => router.close());
      return logger.lines.filter((l) => l.level === "warn" && l.obj.event === "router_option_deprecated");
    };
    expect(build({ stateTtlMs: 120_000 })).toEqual([]);
    const first = build({ stateTtlSec: 120 });
    expect(first).toHaveLength(1);
    expect(first[0]!.obj).toMatchObject({ option: "lti.stateTtlSec", use: "lti.stateTtlMs" });
    expect(build({ stateTtlSec: 120 })).toHaveLength(1);
    await new Promise((r) => setImmediate(r));
    const deprecations = warnings.filter((w) => w.name === "DeprecationWarning" && /stateTtlSec/.test(w.message));
    expect(deprecations).toHaveLength(1);
    expect((deprecations[0] as Error & { code?: string }).code).toBe("EOA_LTI_STATE_TTL_SEC");
  });
});
