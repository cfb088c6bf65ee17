/**
 * The score outbox is fair and patient with each LMS (stand-in LMSs of fake-lms.ts over
 * real HTTP, a real SQLite store, a real Redis fleet): an LMS that hangs every score post
 * holds at most its share of the workers and another school's score still arrives
 * within 5 s with 1,000 of the hanging LMS's waiting; a 429 with `Retry-After: 30` stops
 * every post to that LMS from every instance of a Redis fleet; an LMS that keeps failing
 * opens its own breaker while another LMS's scores go on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import { inProcessFleet, type Fleet } from "../../src/fleet/fleet.js";
import { agsSender } from "../../src/lti/gradebook/ags.js";
import { pauseKey } from "../../src/lti/gradebook/lms-gate.js";
import { readGradebookOptions, type GradebookSettings } from "../../src/lti/options/gradebook-options.js";
import { ScoreOutbox } from "../../src/lti/gradebook/outbox.js";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { LTI_SCOPES } from "../../src/lti/lms/service-access.js";
import type { LtiScoreEntry } from "../../src/store/lti-gradebook-types.js";
import { sqliteStore } from "../../src/store/sqlite.js";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { fakeLms, freshAccess, hangingScores, json, lmsGate, quiet, registrationOf, throttledScores, type FakeLms } from "../support/fake-lms.js";
import { fleetsOnPrefix, randomPrefix, redisOrSkip } from "../support/redis.js";

const dir = mkdtempSync(join(tmpdir(), "eoa-delivery-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const storeFile = () => join(dir, `outbox-${++files}.sqlite`);

function settingsOf(extra: Partial<GradebookSettings> = {}): GradebookSettings {
  const problems = new ProblemList();
  const s = readGradebookOptions({ firstRetryMs: 600_000, maxRetryMs: 3_600_000, pollMs: 50, ...extra }, problems)!;
  problems.throwIfAny("test");
  return s;
}

function scoreFor(lms: FakeLms, id: string, userId: string): LtiScoreEntry {
  return {
    id, key: { issuer: lms.url, clientId: "client-9", deploymentId: "dep-1", contextId: "course-1", kind: "oral", examId: "exam-1" },
    userId, student: { email: `${userId}@school.example` }, label: "Oral exam", ags: { lineItem: `${lms.url}/lineitems/li-1`, scope: [LTI_SCOPES.score] },
    score: { activityProgress: "Completed", gradingProgress: "FullyGraded", scoreGiven: 7, scoreMaximum: 10, timestamp: new Date().toISOString(), comment: "Graded." },
    queuedAt: new Date().toISOString(),
  };
}

/** An instance's outbox: its own service access, the gate on `fleet`, scores of any of `lmss`. */
function instance(store: OralStoreWithLti, lmss: FakeLms[], settings: GradebookSettings, fleet: Fleet = inProcessFleet()): ScoreOutbox {
  const registrations = new Map<string, Registration>(lmss.map((l) => [l.url, registrationOf(l)]));
  const send = agsSender({ store, access: freshAccess(), settings, logger: quiet, loopbackHttp: true, registration: async (issuer) => registrations.get(issuer) });
  return new ScoreOutbox(store, send, settings, quiet, lmsGate(settings.perLmsConcurrency, fleet));
}

const scorePosts = (lms: FakeLms) => lms.hits.filter((h) => h.method === "POST" && h.path.endsWith("/scores"));
const LANE = (lms: FakeLms) => new URL(lms.url).origin;

describe("an LMS that hangs every score post", () => {
  it("holds at most its share of the workers: another school's score arrives within 5 s, 1,000 of the hanging LMS's waiting", async () => {
    const hanging = await fakeLms();
    const other = await fakeLms();
    const hang = hangingScores();
    hanging.handle = hang.handle;
    other.handle = (_hit, res) => json(res, 204, undefined);
    const store = sqliteStore({ filename: storeFile() });
    const outbox = instance(store, [hanging, other], settingsOf({ concurrency: 4, perLmsConcurrency: 2 }));
    try {
      await store.addLtiScores("north", Array.from({ length: 1_000 }, (_, i) => scoreFor(hanging, `h-${i}`, `h-learner-${i}`)));
      outbox.start();
      // The hanging LMS holds what it can of the workers before the other school's score is queued.
      await vi.waitFor(() => expect(hang.open()).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 20 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const queuedAt = Date.now();
      await store.addLtiScores("south", [scoreFor(other, "o-1", "o-learner")]);
      outbox.kick();
      await vi.waitFor(() => expect(scorePosts(other)).toHaveLength(1), { timeout: 5_000, interval: 10 });
      expect(Date.now() - queuedAt).toBeLessThan(5_000);
      expect(JSON.parse(scorePosts(other)[0]!.body)).toMatchObject({ userId: "o-learner", scoreGiven: 7 });
      // The hanging LMS never had more than its share in flight.
      expect(hang.most()).toBe(2);
    } finally {
      await hanging.close();
      await other.close();
      await outbox.close();
      await store.close();
    }
  });

  it("a score post has its own time limit (scoreTimeoutMs): a hung post is retried later, as the LMS failing", async () => {
    const hanging = await fakeLms();
    const hang = hangingScores();
    hanging.handle = hang.handle;
    const store = sqliteStore({ filename: storeFile() });
    const outbox = instance(store, [hanging], settingsOf({ scoreTimeoutMs: 300 }));
    try {
      await store.addLtiScores("north", [scoreFor(hanging, "h-1", "u1")]);
      const started = Date.now();
      await outbox.drain();
      expect(Date.now() - started).toBeLessThan(3_000);
      const [r] = await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 5 });
      expect(r).toMatchObject({ state: "pending", attempts: 1, lastError: expect.stringMatching(/timeout/) });
    } finally {
      await hanging.close();
      await outbox.close();
      await store.close();
    }
  });
});

describe("an LMS that keeps failing", () => {
  it("opens its own breaker: its scores wait, another LMS's go on", async () => {
    const failing = await fakeLms();
    const other = await fakeLms();
    failing.handle = (_hit, res) => json(res, 500, { error: "down" });
    other.handle = (_hit, res) => json(res, 204, undefined);
    const store = sqliteStore({ filename: storeFile() });
    const outbox = instance(store, [failing, other], settingsOf({ concurrency: 4, perLmsConcurrency: 2 }));
    try {
      await store.addLtiScores("north", Array.from({ length: 30 }, (_, i) => scoreFor(failing, `f-${i}`, `f-${i}`)));
      await store.addLtiScores("south", Array.from({ length: 10 }, (_, i) => scoreFor(other, `o-${i}`, `o-${i}`)));
      await outbox.drain();
      // The fleet's breaker defaults: open after 5 failures (at least half the calls); the posts in flight then still end.
      expect(scorePosts(failing).length).toBeGreaterThanOrEqual(5);
      expect(scorePosts(failing).length).toBeLessThanOrEqual(6);
      expect(scorePosts(other)).toHaveLength(10);
      const untried = (await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 100 })).filter((r) => r.attempts === 0);
      expect(untried.length).toBeGreaterThanOrEqual(24);
      // The one the open breaker turned away waits for its probe (the breaker's openMs, 15 s by default).
      expect(Math.max(...untried.map((r) => r.nextAtMs))).toBeGreaterThan(Date.now() + 5_000);
      await outbox.drain();
      expect(scorePosts(failing).length).toBeLessThanOrEqual(6);
    } finally {
      await failing.close();
      await other.close();
      await outbox.close();
      await store.close();
    }
  });
});

const redis = await redisOrSkip("the gradebook's LMS pause across a Redis fleet");

describe.runIf(redis)("a 429 with Retry-After: 30, in a Redis fleet", () => {
  const fleets = fleetsOnPrefix(randomPrefix("gradebook"));

  it("stops every post to that LMS from every instance until then; another LMS's scores go on", async () => {
    const throttling = await fakeLms();
    const other = await fakeLms();
    throttling.handle = throttledScores("30", 1);
    other.handle = (_hit, res) => json(res, 204, undefined);
    const [fleetA, fleetB] = [await fleets.fleet(), await fleets.fleet()];
    const filename = storeFile();
    const [storeA, storeB] = [sqliteStore({ filename }), sqliteStore({ filename })];
    const settings = settingsOf({ firstRetryMs: 100, maxRetryMs: 200, perLmsConcurrency: 2 });
    const [a, b] = [instance(storeA, [throttling, other], settings, fleetA), instance(storeB, [throttling, other], settings, fleetB)];
    try {
      await storeA.addLtiScores("north", [scoreFor(throttling, "t-0", "t-0")]);
      const asked = Date.now();
      await a.drain();
      expect(scorePosts(throttling)).toHaveLength(1);
      // Instance B, which never saw the 429, is handed the throttled LMS's scores first, then both look for 3 s.
      await storeB.addLtiScores("north", Array.from({ length: 4 }, (_, i) => scoreFor(throttling, `t-${i + 1}`, `t-${i + 1}`)));
      await b.drain();
      await storeB.addLtiScores("south", Array.from({ length: 4 }, (_, i) => scoreFor(other, `o-${i}`, `o-${i}`)));
      const watchUntil = Date.now() + 3_000;
      while (Date.now() < watchUntil) {
        await Promise.all([a.drain(), b.drain()]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(scorePosts(throttling)).toHaveLength(1);
      expect(scorePosts(other)).toHaveLength(4);
      // The pause is in Redis, where instance B read it: it ends 30 s after the 429.
      const until = Number(await fleetB.singleUse.peek(pauseKey(LANE(throttling))));
      expect(until).toBeGreaterThanOrEqual(asked + 30_000);
      expect(until).toBeLessThanOrEqual(asked + 31_000);
      // Every score of the throttled LMS still waits: the one tried (its backoff is 100 ms) not due before the pause's end.
      const waiting = await storeA.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 });
      expect(waiting.map((r) => [r.id, r.state, r.attempts]).sort()).toEqual([["t-0", "pending", 1], ...[1, 2, 3, 4].map((i) => [`t-${i}`, "pending", 0])]);
      // Every one of them, the ones B put back for want of room included, is due at the pause's end, not before.
      for (const r of waiting) expect([r.id, r.nextAtMs >= until]).toEqual([r.id, true]);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await Promise.all([storeA.close(), storeB.close()]);
      await throttling.close();
      await other.close();
    }
  });
});
