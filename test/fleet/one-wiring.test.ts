/**
 * Fleet mode has one wiring point: `oralAssessments({ platform, fleet })`. The router gives
 * the client the fleet's shared budget, so an instructor call through the router counts in
 * the fleet's window on Redis although the app built its client without one; a client
 * built on some other budget is refused at start-up; the in-process fleet builds no budget
 * that nothing would read.
 */
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oralAssessments } from "../../src/router/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { fleetReady, inProcessFleet, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { createPlatformClient } from "../../src/platform/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import type { Emulator } from "../../src/emulator/index.js";
import { startTestEmulator } from "../support/emulator.js";
import { listen } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const available = await redisOrSkip("the fleet's one wiring point");

describe("the in-process fleet", () => {
  it("builds no rate budget: the client's own window is the instance's whole budget", async () => {
    const fleet = inProcessFleet();
    expect(fleet.rateBudget).toBeUndefined();
    await fleet.close();
  });
});

describe.runIf(available)("oralAssessments({ platform, fleet }) on Redis", () => {
  const prefix = randomPrefix("wiring");
  let emulator: Emulator;
  let fleet: RedisFleet;
  beforeAll(async () => {
    emulator = await startTestEmulator();
    fleet = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 3_000 });
    expect(await fleetReady(fleet)).toBe(true);
  });
  afterAll(async () => {
    await fleet?.close();
    await emulator?.close();
    await dropPrefix(prefix);
  });
  const sentInWindow = async () => (await fleet.rateBudget.forKey(keyHash(TEST_KEY)).sharedStats()).sentInWindow;

  it("gives a client built without a budget the fleet's: its calls count in the shared window", async () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
    const router = oralAssessments({ platform, fleet, store: memoryStore(), canLaunch: "any-signed-in-user", isInstructor: () => true });
    const app = express();
    app.use((req, _res, next) => {
      (req as unknown as { user: object }).user = { id: "ins", email: "ins@school.test" };
      next();
    });
    app.use("/oral", router);
    const server = await listen(app);
    try {
      const before = await sentInWindow();
      const res = await fetch(`${server.url}/oral/courses`, {
        method: "POST", headers: { "content-type": "application/json", origin: server.url }, body: JSON.stringify({ name: "Counted" }),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      expect(await sentInWindow()).toBe(before + 1);
      // The app's own client was left as it was: a call through it is not the fleet's.
      await platform.courses.list();
      expect(await sentInWindow()).toBe(before + 1);
    } finally {
      await server.close();
      await router.close();
      platform.close();
    }
  });

  it("keeps a client already given the fleet's budget", async () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: fleet.rateBudget });
    const before = await sentInWindow();
    const router = oralAssessments({ platform, fleet, store: memoryStore(), canLaunch: "any-signed-in-user" });
    await platform.courses.list();
    expect(await sentInWindow()).toBe(before + 1);
    await router.close();
    platform.close();
  });

  it("refuses a client on another budget, naming the option and the fix", async () => {
    const other = redisFleet({ url: REDIS_URL, secret: SECRET, prefix: `${prefix}-other`, commandTimeoutMs: 3_000 });
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: other.rateBudget });
    try {
      let error: unknown;
      try {
        oralAssessments({ platform, fleet, store: memoryStore(), canLaunch: "any-signed-in-user" });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      const problem = (error as ConfigurationError).problems.find((p) => p.option === "platform");
      expect(problem?.message).toMatch(/not the fleet's/);
      expect(problem?.fix).toMatch(/Leave rateBudget out/);
    } finally {
      platform.close();
      await other.close();
    }
  });
});
