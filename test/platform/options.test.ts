/**
 * Configuration: every mistake named in one `ConfigurationError` with its fix, the key
 * shown only redacted, and the defaults that follow from the key.
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, type PlatformClientOptions } from "../../src/platform/index.js";
import { listen } from "../support/http.js";
import { assertNoKey } from "../support/canary.js";
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";

function configurationErrorOf(options: unknown): ConfigurationError {
  try {
    createPlatformClient(options as PlatformClientOptions);
  } catch (error) {
    assertNoKey(error, "a configuration error");
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error("expected a ConfigurationError");
}

const optionsNamed = (error: ConfigurationError) => error.problems.map((p) => p.option);

describe("configuration mistakes", () => {
  it("names every mistake in one error, each with its fix, and never shows the key", () => {
    const error = configurationErrorOf({
      apiKey: LIVE_KEY,
      baseUrl: "ftp://platform.example.com",
      env: "dev",
      timeoutMs: -5,
      maxRetries: -1,
      deadlineMs: 1.5,
      maxRetryAfterMs: "30s",
      maxConcurrency: 0,
      rateLimitPerMinute: 0,
      rateWindowMs: Infinity,
      logger: "console",
      rateBudget: { acquire: () => undefined },
      timeout: 1000,
    });
    expect(optionsNamed(error)).toEqual([
      "timeout", "env", "baseUrl", "timeoutMs", "maxRetries", "deadlineMs", "maxRetryAfterMs", "maxConcurrency",
      "rateLimitPerMinute", "rateWindowMs", "rateBudget", "logger",
    ]);
    for (const problem of error.problems) expect(problem.fix.length).toBeGreaterThan(10);
    expect(error.message).toContain("12 problems");
    expect(error.problems.find((p) => p.option === "timeout")?.fix).toContain("timeoutMs");
    // The env problem shows which key, redacted: prefix and last four only.
    expect(error.problems.find((p) => p.option === "env")?.message).toContain(`svc_live_…${LIVE_KEY.slice(-4)}`);
    assertNoKey(JSON.stringify(error.toJSON()), "the serialised error");
  });

  it("never echoes a key pasted into the wrong option", () => {
    const error = configurationErrorOf({ apiKey: TEST_KEY, baseUrl: LIVE_KEY, env: TEST_KEY, timeoutMs: LIVE_KEY });
    expect(optionsNamed(error)).toEqual(["env", "baseUrl", "timeoutMs"]);
    expect(error.message).toContain("key-like value");
  });

  it("never echoes a key of neither family pasted into env or baseUrl", () => {
    const odd = `sk_${TEST_KEY.slice(9)}`;
    const error = configurationErrorOf({ apiKey: odd, baseUrl: odd, env: odd });
    expect(error.problems.map((p) => [p.option, p.message])).toEqual([
      ["env", `must be "prod" or "dev", got a key-like value (…${odd.slice(-4)}).`], ["baseUrl", `(a key-like value (…${odd.slice(-4)})) is not an absolute URL.`],
    ]);
    expect(JSON.stringify(error.toJSON())).not.toContain(odd);
  });

  it("names a missing apiKey and a missing baseUrl together", () => {
    expect(optionsNamed(configurationErrorOf({}))).toEqual(["apiKey", "baseUrl"]);
    expect(optionsNamed(configurationErrorOf({ apiKey: "", baseUrl: "" }))).toEqual(["apiKey", "baseUrl"]);
    expect(optionsNamed(configurationErrorOf(undefined))).toEqual(["options", "apiKey", "baseUrl"]);
    expect(optionsNamed(configurationErrorOf([]))).toEqual(["options", "apiKey", "baseUrl"]);
  });

  it("names the option likely meant only for a known misspelling, never an Object.prototype member", () => {
    const error = configurationErrorOf({ apiKey: TEST_KEY, baseUrl: "https://p.example.com", url: "x", constructor: 1 });
    expect(error.problems.map((p) => [p.option, p.message])).toEqual([
      ["url", "is not an option of the platform client."], ["constructor", "is not an option of the platform client."],
    ]);
    expect(error.problems[0]?.fix).toBe("Did you mean `baseUrl`? Rename it.");
    expect(error.problems[1]?.fix).toMatch(/^Remove it; known options are apiKey, baseUrl, env, timeoutMs, .*, logger\.$/);
  });

  it("refuses env values other than prod and dev", () => {
    const error = configurationErrorOf({ apiKey: TEST_KEY, baseUrl: "https://p.example.com", env: "staging" });
    expect(optionsNamed(error)).toEqual(["env"]);
  });

  it("refuses an env that disagrees with the key prefix, both ways", () => {
    expect(optionsNamed(configurationErrorOf({ apiKey: LIVE_KEY, baseUrl: "https://p.example.com", env: "dev" }))).toEqual(["env"]);
    expect(optionsNamed(configurationErrorOf({ apiKey: TEST_KEY, baseUrl: "https://p.example.com", env: "prod" }))).toEqual(["env"]);
  });

  it("refuses a key with another prefix and no env, but accepts it with an explicit env", () => {
    const odd = `sk_${TEST_KEY.slice(9)}`;
    const error = configurationErrorOf({ apiKey: odd, baseUrl: "https://p.example.com" });
    expect(optionsNamed(error)).toEqual(["apiKey"]);
    expect(error.message).not.toContain(odd);
    const client = createPlatformClient({ apiKey: odd, baseUrl: "https://p.example.com", env: "dev" });
    expect(client.env).toBe("dev");
    client.close();
  });

  it("refuses a key with surrounding whitespace (a trailing newline from a secrets file) or only a prefix", () => {
    const error = configurationErrorOf({ apiKey: `${TEST_KEY}\n`, baseUrl: "https://p.example.com" });
    expect(error.problems[0]?.message).toContain("whitespace");
    expect(optionsNamed(configurationErrorOf({ apiKey: "svc_test_", baseUrl: "https://p.example.com" }))).toEqual(["apiKey"]);
    expect(optionsNamed(configurationErrorOf({ apiKey: 12345, baseUrl: "https://p.example.com" }))).toEqual(["apiKey"]);
  });

  it.each([
    ["not a URL", "platform.example.com"],
    ["another scheme", "ftp://platform.example.com"],
    ["a query string", "https://platform.example.com/?env=dev"],
    ["a fragment", "https://platform.example.com/#x"],
    ["credentials", "https://user:pass@platform.example.com"],
    ["the API path already", "https://platform.example.com/api/v1"],
    ["the API path with env", "https://platform.example.com/api/v1/dev/"],
    ["http to a remote host", "http://platform.example.com"],
  ])("refuses a baseUrl with %s", (_what, baseUrl) => {
    expect(optionsNamed(configurationErrorOf({ apiKey: TEST_KEY, baseUrl }))).toEqual(["baseUrl"]);
  });

  it("allows http to a remote host only with allowInsecureHttp, and always to loopback", () => {
    for (const baseUrl of ["http://127.0.0.1:4010", "http://localhost:4010", "http://[::1]:4010"]) {
      createPlatformClient({ apiKey: TEST_KEY, baseUrl }).close();
    }
    createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://emulator:4010", allowInsecureHttp: true }).close();
  });
});

describe("settings that follow from the options", () => {
  it("derives env and the rate limit from the key: svc_test_ → dev, 60/min; svc_live_ → prod, 600/min", () => {
    const dev = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "https://platform.example.com/" });
    const prod = createPlatformClient({ apiKey: LIVE_KEY, baseUrl: "https://platform.example.com" });
    expect([dev.env, dev.rateStats().limit, dev.rateStats().maxConcurrency]).toEqual(["dev", 60, 16]);
    expect([prod.env, prod.rateStats().limit, prod.rateStats().windowMs]).toEqual(["prod", 600, 60_000]);
    expect(dev.platformOrigin).toBe("https://platform.example.com");
    expect(prod.redactedKey).toBe(`svc_live_…${LIVE_KEY.slice(-4)}`);
    dev.close();
    prod.close();
  });

  it("does not expose the key on the client object, however it is printed", () => {
    const client = createPlatformClient({ apiKey: LIVE_KEY, baseUrl: "https://platform.example.com" });
    assertNoKey(client, "the client");
    client.close();
  });

  it("keeps a base path prefix (a reverse proxy) in front of /api/v1/<env>", async () => {
    const paths: string[] = [];
    const server = await listen((req, res) => {
      paths.push(req.url ?? "");
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"data":[]}');
    });
    const client = createPlatformClient({ apiKey: TEST_KEY, baseUrl: `${server.url}/platform/` });
    await client.courses.list();
    expect(paths).toEqual(["/platform/api/v1/dev/courses"]);
    expect(client.platformOrigin).toBe(server.url);
    client.close();
    await server.close();
  });
});
