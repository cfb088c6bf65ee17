/**
 * `lti.roster`, `lti.gradebook` and `lti.loginLimit` read against their schemas: each wrong field is one
 * problem of the router's ConfigurationError (with its fix) and reads as its default, the
 * right fields beside it are kept, and a name the roster does not know is refused rather
 * than ignored.
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, type LtiOptions } from "../../src/index.js";
import { resolveRouterOptions } from "../../src/router/settings.js";
import { TEST_KEY } from "../support/keys.js";
import { TOOL_KEY_PEM } from "../support/lti.js";

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
const registration = { issuer: "https://lms.example", clientId: "c", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks", deployments: ["d"] };
const resolve = (extra: object) =>
  resolveRouterOptions({ platform, canLaunch: "any-signed-in-user", store: memoryStore(), lti: { keys: [{ kid: "k", privateKey: TOOL_KEY_PEM }], registrations: [registration], ...extra } as LtiOptions });

function problemsOf(extra: object): { option: string; message: string; fix: string }[] {
  try {
    resolve(extra);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).problems.map(({ option, message, fix }) => ({ option, message, fix }));
  }
  return [];
}

describe("lti.roster", () => {
  it("reads each field, the others at their defaults", () => {
    expect(resolve({}).lti!.roster).toEqual({ maxPages: 200, pageSize: 100, requestTimeoutMs: 10_000, formTtlMs: 3_600_000, maxBytes: 134_217_728 });
    expect(resolve({ roster: { pageSize: 50, formTtlMs: 120_000 } }).lti!.roster).toEqual({ maxPages: 200, pageSize: 50, requestTimeoutMs: 10_000, formTtlMs: 120_000, maxBytes: 134_217_728 });
  });

  it("names each wrong field with its range, and refuses a misspelt name instead of ignoring it", () => {
    const problems = problemsOf({ roster: { maxPage: 50, pageSize: 0, requestTimeoutMs: 10_000 } });
    expect(problems).toEqual([
      { option: "lti.roster.maxPage", message: "is not an option.", fix: "Did you mean `maxPages`? Rename it." },
      { option: "lti.roster.pageSize", message: "must be a whole number from 1 to 1000, got 0.", fix: "Leave it out for the default (100)." },
    ]);
    expect(problemsOf({ roster: "big" }).map((p) => [p.option, p.message])).toEqual([["lti.roster", "must be an object { maxPages, pageSize, requestTimeoutMs, formTtlMs, maxBytes }."]]);
  });
});

describe("lti.loginLimit", () => {
  it("reads each field on its own, the other at its default; the deprecated perAddress is the same bucket", () => {
    expect(resolve({}).lti!.loginLimit).toEqual({ burst: 600, refillMs: 100 });
    expect(resolve({ loginLimit: { refillMs: 50 } }).lti!.loginLimit).toEqual({ burst: 600, refillMs: 50 });
    expect(resolve({ loginLimit: { perAddress: { burst: 7 } } }).lti!.loginLimit).toEqual({ burst: 7, refillMs: 100 });
    expect(resolve({ loginLimit: { perRegistration: { burst: 1 } } }).lti!.loginLimit).toEqual({ burst: 600, refillMs: 100 });
  });

  it("names a wrong object or field, with the defaults in the fix; the deprecated buckets are still checked", () => {
    expect(problemsOf({ loginLimit: 5 })).toEqual([{
      option: "lti.loginLimit", message: "must be an object { burst, refillMs }.", fix: "Leave it out for { burst: 600, refillMs: 100 }.",
    }]);
    expect(problemsOf({ loginLimit: { burst: 0, refillMs: 1.5 } })).toEqual([
      { option: "lti.loginLimit.burst", message: "must be a whole number ≥ 1, got 0.", fix: "Leave it out for the default (600)." },
      { option: "lti.loginLimit.refillMs", message: "must be a whole number of ms ≥ 1, got 1.5.", fix: "Leave it out for the default (100)." },
    ]);
    expect(problemsOf({ loginLimit: { perAddress: [], perRegistration: { burst: 0.5, refillMs: 20 } } })).toEqual([
      { option: "lti.loginLimit.perAddress", message: "must be an object { burst, refillMs }.", fix: "Write lti.loginLimit: { burst, refillMs } instead (perAddress is deprecated)." },
      { option: "lti.loginLimit.perRegistration.burst", message: "must be a whole number ≥ 1, got 0.5.", fix: "Leave it out for the default (3000)." },
    ]);
  });
});

describe("lti.gradebook", () => {
  it("reads each field, the others at their defaults; false turns it off", () => {
    expect(resolve({ gradebook: { tag: "oral", maxAttempts: 3 } }).lti!.gradebook).toMatchObject({ scoreMaximum: 100, tag: "oral", pollMs: 1_000, maxAttempts: 3 });
    expect(resolve({ gradebook: false }).lti!.gradebook).toBeUndefined();
  });

  it("names each wrong field with its range and unit, and refuses a misspelt name", () => {
    expect(problemsOf({ gradebook: { pollMs: 5, scoreMaximum: 0, maxAttempt: 3 } })).toEqual([
      { option: "lti.gradebook.maxAttempt", message: "is not an option.", fix: "Did you mean `maxAttempts`? Rename it." },
      { option: "lti.gradebook.scoreMaximum", message: "must be a whole number from 1 to 1000000, got 0.", fix: "Leave it out for the default (100)." },
      { option: "lti.gradebook.pollMs", message: "must be a whole number of ms from 10 to 60000, got 5.", fix: "Leave it out for the default (1000)." },
    ]);
  });

  it("scoreMaximum is a whole number (Open edX keeps no fraction); gradesReleased is false unless set", () => {
    expect(problemsOf({ gradebook: { scoreMaximum: 12.5 } })).toEqual([
      { option: "lti.gradebook.scoreMaximum", message: "must be a whole number from 1 to 1000000, got 12.5.", fix: "Leave it out for the default (100)." },
    ]);
    expect(resolve({ gradebook: {} }).lti!.gradebook).toMatchObject({ gradesReleased: false });
    expect(resolve({ gradebook: { gradesReleased: true } }).lti!.gradebook).toMatchObject({ gradesReleased: true });
  });
});
