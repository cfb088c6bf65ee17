/**
 * Both key families: `svc_live_`/`svc_test_` (the seed document) and `ct_live_`/`ct_test_`
 * (the vendor reference) derive the environment, keep their prefix when redacted, and
 * work end to end against an emulator that accepts them. Keys here are fresh random
 * values; every error and the printed client are searched for them.
 */
import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { ConfigurationError, createPlatformClient } from "../../src/index.js";
import { redactKey } from "../../src/core/redact.js";

const CT_TEST = `ct_test_${randomBytes(24).toString("base64url")}`;
const CT_LIVE = `ct_live_${randomBytes(24).toString("base64url")}`;
const OTHER = `sk_${randomBytes(24).toString("base64url")}`;
const BASE = "https://platform.example.com";

describe("key families", () => {
  it.each([
    ["ct_test_", CT_TEST, "dev"],
    ["ct_live_", CT_LIVE, "prod"],
    ["svc_test_", `svc_test_${randomBytes(24).toString("base64url")}`, "dev"],
    ["svc_live_", `svc_live_${randomBytes(24).toString("base64url")}`, "prod"],
  ])("%s keys derive their environment and keep their prefix when redacted", (prefix, key, env) => {
    const client = createPlatformClient({ apiKey: key, baseUrl: BASE });
    expect(client.env).toBe(env);
    expect(client.redactedKey).toBe(`${prefix}…${key.slice(-4)}`);
    expect(redactKey(key)).toBe(client.redactedKey);
    expect(`${inspect(client, { depth: 5 })} ${JSON.stringify(client)}`).not.toContain(key);
    client.close();
  });

  it("a ct_ key on the other environment is one ConfigurationError naming env, without the key", () => {
    let error: unknown;
    try {
      createPlatformClient({ apiKey: CT_LIVE, baseUrl: BASE, env: "dev" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems.map((p) => p.option)).toEqual(["env"]);
    expect(String((error as Error).message)).toContain(`ct_live_…${CT_LIVE.slice(-4)}`);
    expect(`${(error as Error).message} ${(error as Error).stack}`).not.toContain(CT_LIVE);
  });

  it("a key of neither family needs env, and works with it", () => {
    expect(() => createPlatformClient({ apiKey: OTHER, baseUrl: BASE })).toThrow(ConfigurationError);
    const client = createPlatformClient({ apiKey: OTHER, baseUrl: BASE, env: "prod" });
    expect(client.env).toBe("prod");
    expect(client.redactedKey).not.toContain(OTHER);
    client.close();
  });
});

describe("ct_ keys against the emulator", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ testKeys: [CT_TEST], liveKeys: [CT_LIVE] });
  });
  afterAll(() => emulator.close());

  it("each reaches its own environment, and only its own data", async () => {
    const dev = createPlatformClient({ apiKey: CT_TEST, baseUrl: emulator.url });
    const prod = createPlatformClient({ apiKey: CT_LIVE, baseUrl: emulator.url });
    try {
      const course = await dev.courses.create({ name: "Dev course" });
      expect(emulator.requests.at(-1)).toMatchObject({ env: "dev", status: 201 });
      await prod.courses.create({ name: "Prod course" });
      expect(emulator.requests.at(-1)).toMatchObject({ env: "prod", status: 201 });
      expect((await prod.courses.list()).data.map((c) => c.name)).toEqual(["Prod course"]);
      await expect(prod.courses.retrieve(course.data._id)).rejects.toMatchObject({ kind: "not_found", status: 404 });
    } finally {
      dev.close();
      prod.close();
    }
  });

  it("the emulator refuses a ct_live_ key in testKeys at start", async () => {
    await expect(startEmulator({ testKeys: [CT_LIVE] })).rejects.toBeInstanceOf(ConfigurationError);
  });
});
