/**
 * redisFleet's options: every mistake reported at once in one ConfigurationError that
 * names the option and its fix, never echoing the secret; nothing connects before that.
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { redisFleet, type RedisFleetOptions } from "../../src/fleet/index.js";

function problemsOf(options: unknown): { option: string; message: string; fix: string }[] {
  try {
    const fleet = redisFleet(options as RedisFleetOptions);
    void fleet.close();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return [...(error as ConfigurationError).problems];
  }
  throw new Error("expected a ConfigurationError");
}

describe("redisFleet options", () => {
  it("lists a missing url and a missing secret together", () => {
    const problems = problemsOf({});
    expect(problems.map((p) => p.option)).toEqual(["url", "secret"]);
    expect(problems[0]!.fix).toMatch(/REDIS_URL/);
    expect(problems[1]!.fix).toMatch(/32/);
  });

  it("rejects a short secret without echoing it, a non-Redis url, and bad numbers", () => {
    const secret = "short-secret-value";
    const problems = problemsOf({ url: "http://localhost:6379", secret, prefix: "has space", expectedInstances: 0, launchShare: 1, commandTimeoutMs: 1.5, launchLimit: { burst: 0 } });
    expect(problems.map((p) => p.option)).toEqual(["url", "secret", "prefix", "expectedInstances", "commandTimeoutMs", "launchShare", "launchLimit.burst"]);
    expect(JSON.stringify(problems)).not.toContain(secret);
  });

  it("accepts the contract's minimal form without connecting first", async () => {
    const fleet = redisFleet({ url: "redis://127.0.0.1:1", secret: "x".repeat(32), commandTimeoutMs: 100 });
    expect(fleet.kind).toBe("redis");
    expect(typeof fleet.rateBudget.acquire).toBe("function");
    await fleet.close();
  });
});
