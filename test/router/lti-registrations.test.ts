/**
 * Registrations and key sets: two registrations sharing an issuer (Canvas Cloud) are
 * told apart by client id; the LMS's key set is fetched once and cached, refetched when a
 * rotated key's kid appears; configuration mistakes come as one ConfigurationError.
 */
import { createPrivateKey } from "node:crypto";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments } from "../../src/index.js";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { TEST_KEY } from "../support/keys.js";
import { linkCourse, startLtiBench, TOOL_KEY_PEM, walkLaunch, type LtiBench } from "../support/lti.js";

describe("LTI registrations and key sets", () => {
  let bench: LtiBench;
  let second: LmsEmulator;
  beforeAll(async () => {
    second = await createLmsEmulator({ clientId: "lms-client-2" });
    // The second registration has the bench LMS's issuer but another client id and key set.
    bench = await startLtiBench((lms) => ({ keySetCooldownMs: 0, registrations: [lms.registration(), { ...second.registration(), issuer: lms.issuer }] }));
  });
  afterAll(async () => { await bench.close(); await second.close(); });

  it("refuses a login naming only an issuer that two registrations share", async () => {
    const res = await request(bench.stack.app.url).get("/oral/lti/login").query({ iss: bench.lms.issuer, login_hint: "student-1", target_link_uri: "x" });
    expect(res.status).toBe(400);
    expect(res.text).toContain("Several registrations share the issuer");
  });

  it("caches the LMS's key set, and refetches it once when a rotated key's kid appears", async () => {
    await linkCourse(bench); // course binding: the course's instructor opened the link once
    const before = bench.lms.jwksFetches;
    expect((await walkLaunch(bench)).launch.status).toBe(200);
    expect((await walkLaunch(bench)).launch.status).toBe(200);
    expect(bench.lms.jwksFetches - before).toBeLessThanOrEqual(1);
    const fetched = bench.lms.jwksFetches;
    await bench.lms.rotateKey(true);
    expect((await walkLaunch(bench)).launch.status).toBe(200);
    expect(bench.lms.jwksFetches).toBe(fetched + 1);
    expect((await walkLaunch(bench)).launch.status).toBe(200);
    expect(bench.lms.jwksFetches).toBe(fetched + 1);
  });
});

describe("LTI options", () => {
  it("lists every mistake of the lti option in one ConfigurationError", () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    try {
      expect(() => oralAssessments({ platform, canLaunch: "any-signed-in-user", lti: {
        keys: [{ kid: "a b", privateKey: "not a key" }],
        registrations: [{ issuer: "", clientId: "c", authorizationUrl: "http://lms.example/auth", jwksUrl: "x", deployments: [] }],
        clockToleranceSec: 9999,
      } })).toThrow(ConfigurationError);
      try {
        oralAssessments({ platform, canLaunch: "any-signed-in-user", lti: {
          keys: [{ kid: "k", privateKey: "not a key" }], registrations: {} as never, clockToleranceSec: 9999,
          dynamicRegistration: { autoActivate: true, organization: "no org!", timeoutMs: 1 },
        } });
        expect.unreachable();
      } catch (error) {
        const options = (error as ConfigurationError).problems.map((p) => p.option);
        expect(options).toEqual(expect.arrayContaining(["lti.keys[0].privateKey", "lti.registrations", "lti.clockToleranceSec",
          "lti.dynamicRegistration.autoActivate", "lti.dynamicRegistration.organization", "lti.dynamicRegistration.timeoutMs"]));
        expect(JSON.stringify(error)).not.toContain("not a key");
      }
    } finally { platform.close(); }
  });

  it("accepts a JWK private key and publishes only its public part", async () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    const jwk = createPrivateKey(TOOL_KEY_PEM).export({ format: "jwk" });
    const app = express();
    const router = oralAssessments({ platform, canLaunch: "any-signed-in-user", store: memoryStore(), lti: {
      keys: [{ kid: "jwk-key", privateKey: jwk }, { kid: "pem-key", privateKey: TOOL_KEY_PEM }],
      registrations: [{ issuer: "https://lms.example", clientId: "c", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks", deployments: ["d"] }],
    } });
    app.use("/oral", router);
    try {
      const res = await request(app).get("/oral/lti/jwks.json").expect(200);
      expect(res.body.keys.map((k: { kid: string }) => k.kid)).toEqual(["jwk-key", "pem-key"]);
      expect(res.body.keys[0].n).toBe(jwk.n);
      expect(res.text).not.toContain(jwk.d!);
    } finally { await router.close(); platform.close(); }
  });
});
