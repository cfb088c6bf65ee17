/**
 * Fleet mode (Redis at 127.0.0.1:6379), two router instances in this process, each with
 * its own `redisFleet` on one prefix and its own platform client, one emulator: the
 * circuit breaker opened by failures seen on one instance refuses launches on the other
 * with no call, and a student reloading across both instances against a platform that
 * fails for them costs at most 5 sign-in calls (the failure backoff is shared).
 */
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { fleetReady, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { createPlatformClient, memoryStore, oralAssessments, type OralAssessmentsRouter, type PlatformClient } from "../../src/index.js";
import { startTestEmulator } from "../support/emulator.js";
import { listen, type Listening } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";
import { Redis } from "ioredis";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { USERS, type TestUser } from "../support/users.js";

const available = await redisOrSkip("the fleet circuit-breaker tests");
const SIGN_IN = "/students/sign-in-token";

interface Instance { fleet: RedisFleet; platform: PlatformClient; router: OralAssessmentsRouter; app: Listening }

describe.runIf(available)("the circuit breaker and the failure backoff, shared by a fleet", () => {
  const prefix = randomPrefix("breaker");
  let emulator: Emulator;
  let instances: Instance[] = [];
  let exam: { classId: string; courseId: string; examId: string };

  beforeAll(async () => {
    emulator = await startTestEmulator({ rateLimits: { dev: 10_000 } });
    const admin = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateLimitPerMinute: 1_000 });
    const course = await admin.courses.create({ name: "Fleet 101" });
    const cls = await admin.classes.create(course.data._id, { name: "Fleet", startDate: "2026-09-01", endDate: "2026-12-20" });
    const created = await admin.oralAssessments.create({ name: "Oral", classId: cls.data._id, questions: [{ text: "Why?" }] });
    exam = { classId: cls.data._id, courseId: course.data._id, examId: created.data._id };
    admin.close();
    instances = await Promise.all([0, 1].map(async () => {
      // Long waits (open 60 s, a first backoff of 30 s): nothing here may end while a test looks.
      const fleet = redisFleet({
        url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 3_000,
        circuitBreaker: { openMs: 60_000 }, launchLimit: { failureBackoffMs: 30_000, maxFailureBackoffMs: 60_000 },
      });
      await fleetReady(fleet);
      const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: fleet.rateBudget, timeoutMs: 2_000, maxRetries: 0 });
      const router = oralAssessments({
        platform, fleet, store: memoryStore(), examHost: emulator.examHost, canLaunch: () => true,
        resolveClassId: (examId) => (examId === exam.examId ? { classId: exam.classId, courseId: exam.courseId } : undefined),
      });
      const host = express();
      host.use((req, _res, next) => {
        (req as unknown as { user?: TestUser }).user = USERS.find((u) => u.username === req.get("x-test-user"));
        next();
      });
      host.use("/oral", router);
      return { fleet, platform, router, app: await listen(host) };
    }));
  });
  afterAll(async () => {
    for (const i of instances) {
      await i.app.close();
      await i.router.close();
      i.platform.close();
      await i.fleet.close();
    }
    await emulator?.close();
    await dropPrefix(prefix);
  });

  const launch = (instance: number, user: string) =>
    fetch(`${instances[instance]!.app.url}/oral/launch/${exam.examId}`, { redirect: "manual", headers: { "x-test-user": user } });
  const signIns = () => emulator.requests.filter((r) => r.path === SIGN_IN).length;

  it("100 reloads alternating between two instances against a platform failing for that student cost at most 5 calls", async () => {
    emulator.fault({ type: "status", status: 500, count: 10_000, pathPrefix: SIGN_IN, bodyContains: "ada@school.test" });
    const before = signIns();
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const res = await launch(i % 2, "ada");
      statuses.add(res.status);
      await res.arrayBuffer();
    }
    expect([...statuses]).toEqual([502]);
    expect(signIns() - before).toBeGreaterThanOrEqual(1);
    expect(signIns() - before).toBeLessThanOrEqual(5);
    emulator.clearFaults();
    expect((await launch(1, "bob")).status).toBe(303);
  });

  it("a last failure written into Redis without the secret is never shown: the student gets the plain 429 page", async () => {
    emulator.fault({ type: "status", status: 500, count: 10_000, pathPrefix: SIGN_IN, bodyContains: "s50@school.test" });
    expect((await launch(0, "s50")).status).toBe(502);
    emulator.clearFaults();
    const redis = new Redis(REDIS_URL);
    try {
      const keys: string[] = [];
      let cursor = "0";
      do {
        const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}:lim:*`, "COUNT", 500);
        cursor = next;
        keys.push(...found);
      } while (cursor !== "0");
      expect(keys.length).toBeGreaterThan(0);
      const forged = JSON.stringify({ status: 409, page: "class_full" });
      for (const key of keys) if ((await redis.hget(key, "failures")) !== "0") await redis.hset(key, "last", forged);
    } finally {
      redis.disconnect();
    }
    const res = await launch(1, "s50");
    expect(res.status).toBe(429); // still held back by the backoff, which counts either way
    expect(await res.text()).not.toContain("This exam is full");
  });

  it("failures seen on one instance open the breaker for both: the other refuses with a 503 and no call", async () => {
    emulator.fault({ type: "status", status: 500, count: 10_000, pathPrefix: SIGN_IN });
    // Students failing on instance 0 until it opens (the failures of the test above may count too).
    let failed = 0;
    let res = await launch(0, "s0");
    while (res.status === 502) res = await launch(0, `s${++failed}`);
    expect(res.status).toBe(503);
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(failed).toBeLessThanOrEqual(5);
    const calls = signIns();
    const refused = await launch(1, "s5");
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(1);
    expect(await refused.text()).toContain("The exam service is not answering");
    expect((await launch(0, "s6")).status).toBe(503);
    expect(signIns()).toBe(calls);
    emulator.clearFaults();
  });
});
