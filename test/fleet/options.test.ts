/**
 * redisFleet's options: every mistake reported at once in one ConfigurationError that
 * names the option and its fix, never echoing the secret; nothing connects before that.
 * The secret must be real key material: 32+ random bytes as base64, base64url or hex.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { redisFleet, type RedisFleetOptions } from "../../src/fleet/index.js";
import { SECRET } from "../support/redis.js";

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

/** Whether redisFleet accepts this secret (closing the fleet it made). */
function accepts(secret: unknown): boolean {
  try {
    void redisFleet({ url: "redis://127.0.0.1:1", secret: secret as string, commandTimeoutMs: 100 }).close();
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return false;
  }
}

const URL = "redis://127.0.0.1:1";

describe("redisFleet options", () => {
  it("lists a missing url and a missing secret together", () => {
    const problems = problemsOf({});
    expect(problems.map((p) => p.option)).toEqual(["url", "secret"]);
    expect(problems[0]!.fix).toMatch(/REDIS_URL/);
    expect(problems[1]!.fix).toMatch(/openssl rand -base64 48/);
  });

  it("rejects a short secret without echoing it, a non-Redis url, and bad numbers", () => {
    const secret = "short-secret-value";
    const problems = problemsOf({ url: "http://localhost:6379", secret, prefix: "has space", expectedInstances: 0, launchShare: 1, commandTimeoutMs: 1.5, planProgressTtlMs: 10, launchLimit: { burst: 0 } });
    expect(problems.map((p) => p.option)).toEqual(["url", "secret", "prefix", "expectedInstances", "commandTimeoutMs", "planProgressTtlMs", "launchShare", "launchLimit.burst"]);
    expect(JSON.stringify(problems)).not.toContain(secret);
  });

  it("reads url through the one URL reader: a string that does not parse is not a URL, and is not echoed (it may hold a password)", () => {
    const problems = problemsOf({ url: "redis//:hunter2@cache", secret: SECRET });
    expect(problems.map((p) => `${p.option}: ${p.message}`)).toEqual(["url: is not a URL."]);
    expect(JSON.stringify(problems)).not.toContain("hunter2");
  });

  it("checks the launch limit's failure backoff and the circuit breaker into the same error", () => {
    const problems = problemsOf({
      url: "redis://127.0.0.1:6379", secret: SECRET,
      launchLimit: { failureBackoffMs: -1, maxFailureBackoffMs: 1.5 },
      circuitBreaker: { minFailures: 0, failureRatio: 0, windowMs: "30s", openMs: 10, probeLeaseMs: 100 },
    });
    expect(problems.map((p) => p.option)).toEqual([
      "launchLimit.failureBackoffMs", "launchLimit.maxFailureBackoffMs",
      "circuitBreaker.minFailures", "circuitBreaker.windowMs", "circuitBreaker.openMs", "circuitBreaker.failureRatio",
    ]);
    expect(problemsOf({ url: "redis://127.0.0.1:6379", secret: SECRET, launchLimit: { failureBackoffMs: 5_000, maxFailureBackoffMs: 1_000 } })
      .map((p) => p.option)).toEqual(["launchLimit.maxFailureBackoffMs"]);
  });

  it("accepts the contract's minimal form without connecting first", async () => {
    const fleet = redisFleet({ url: URL, secret: SECRET, commandTimeoutMs: 100 });
    expect(fleet.kind).toBe("redis");
    expect(typeof fleet.rateBudget.acquire).toBe("function");
    await fleet.close();
  });

  it("takes 32+ random bytes as base64, base64url or hex (line breaks from openssl allowed)", () => {
    const bytes = randomBytes(48);
    expect(accepts(bytes.toString("base64"))).toBe(true);
    expect(accepts(bytes.toString("base64url"))).toBe(true);
    expect(accepts(bytes.toString("hex"))).toBe(true);
    expect(accepts(randomBytes(32).toString("base64"))).toBe(true);
    const wrapped = randomBytes(96).toString("base64").replace(/(.{64})/g, "$1\n");
    expect(accepts(`${wrapped}\n`)).toBe(true);
  });

  it("refuses passphrases, short keys and obvious patterns, each with the openssl fix and never the secret", () => {
    const refused = {
      passphrase: "correct horse battery staple, and then some more words",
      short: randomBytes(24).toString("base64"),
      repeated: "x".repeat(64),
      counting: Buffer.from(Array.from({ length: 48 }, (_, i) => i)).toString("hex"),
      encodedText: Buffer.from("our oral exam fleet secret, please keep it very safe").toString("base64"),
      fewBytes: Buffer.from(Array.from({ length: 64 }, (_, i) => [7, 99, 200][i % 3]!)).toString("base64url"),
    };
    for (const [what, secret] of Object.entries(refused)) {
      const problems = problemsOf({ url: URL, secret });
      expect(problems.map((p) => p.option), what).toEqual(["secret"]);
      expect(problems[0]!.fix, what).toMatch(/openssl rand -base64 48/);
      expect(JSON.stringify(problems), what).not.toContain(secret);
    }
    expect(problemsOf({ url: URL, secret: refused.passphrase })[0]!.message).toMatch(/passphrase/);
    expect(problemsOf({ url: URL, secret: refused.short })[0]!.message).toMatch(/24 bytes; at least 32/);
    expect(problemsOf({ url: URL, secret: refused.encodedText })[0]!.message).toMatch(/plain text/);
    expect(problemsOf({ url: URL, secret: refused.counting })[0]!.message).toMatch(/does not look random/);
  });

  it("refuses 31 random bytes (one short of a key), and a secret of a few byte values even when their order varies", () => {
    const shortByOne = randomBytes(31).toString("base64");
    expect(problemsOf({ url: URL, secret: shortByOne })[0]!.message).toMatch(/31 bytes; at least 32/);
    // Five byte values, every one following every other: 21 different steps between neighbours,
    // not printable text, yet only five distinct bytes (about 2.3 bits each).
    const values = [0x00, 0x01, 0x04, 0x10, 0x40];
    const bytes = Buffer.from(values.flatMap((x) => values.flatMap((y) => [x, y])));
    const steps = new Set(bytes.subarray(1).map((byte, i) => (byte - bytes[i]!) & 0xff)).size;
    expect(steps).toBeGreaterThanOrEqual(16);
    for (const secret of [bytes.toString("base64"), bytes.toString("hex")]) {
      const problems = problemsOf({ url: URL, secret });
      expect(problems.map((p) => p.option)).toEqual(["secret"]);
      expect(problems[0]!.message).toMatch(/does not look random/);
    }
  });

  it("takes a list of { id, secret } to rotate, and names the entry at fault", () => {
    const [a, b] = [randomBytes(32).toString("base64url"), randomBytes(32).toString("hex")];
    expect(accepts([{ id: "2025-09", secret: a }, { id: "default", secret: b }])).toBe(true);
    expect(problemsOf({ url: URL, secret: [] }).map((p) => p.option)).toEqual(["secret"]);
    const problems = problemsOf({ url: URL, secret: [
      { id: "new", secret: a }, { id: "has space", secret: b }, { id: "new", secret: randomBytes(32).toString("hex") },
      { id: "short", secret: "abcd" }, { id: "again", secret: a }, { id: "none" },
    ] });
    expect(problems.map((p) => p.option)).toEqual(["secret[1].id", "secret[2].id", "secret[3].secret", "secret[4].secret", "secret[5].secret"]);
    expect(problems[1]!.message).toMatch(/repeats the id "new"/);
    expect(problems[3]!.message).toMatch(/repeats an earlier entry's secret/);
    expect(JSON.stringify(problems)).not.toContain(a);
  });
});
