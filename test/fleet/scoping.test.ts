/**
 * The fleet's scoping contract, on both fleets: whatever organization A writes (a launch
 * attempt and its wait id, a prepared token, a plan and its lease, a student's launch
 * limit) is invisible under organization B, and under the default organization, for the
 * same exam id and student.
 */
import { afterAll, describe, expect, it } from "vitest";
import { inProcessFleet, type Fleet } from "../../src/fleet/fleet.js";
import { redisFleet } from "../../src/fleet/redis-fleet.js";
import { scopeFleet, scopedExamKey, type ScopedFleetParts } from "../../src/fleet/scoped-fleet.js";
import { DEFAULT_ORGANIZATION } from "../../src/store/types.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const available = await redisOrSkip("the fleet's scoping contract on Redis");
const prefix = randomPrefix("scoping");
afterAll(() => dropPrefix(prefix));

const fleets: [string, () => Fleet, boolean][] = [
  ["in process", () => inProcessFleet(), true],
  ["on Redis", () => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 3_000 }), available],
];

describe.each(fleets)("the fleet %s, scoped by organization", (_name, make, runs) => {
  const fleet = runs ? make() : undefined;
  afterAll(() => fleet?.close());
  const scoped = (org: string): ScopedFleetParts => scopeFleet(fleet!, org);
  const EXAM = "exam-1";
  const USER = "user-1";

  it.runIf(runs)("keeps launch attempts apart: each organization begins its own, a wait id means nothing elsewhere", async () => {
    const [a, b, d] = [scoped("north"), scoped("south"), scoped(DEFAULT_ORGANIZATION)];
    const ta = await a.attempts.begin(EXAM, USER);
    const tb = await b.attempts.begin(EXAM, USER);
    const td = await d.attempts.begin(EXAM, USER);
    expect(ta.lease).toBeDefined();
    expect(tb.lease).toBeDefined(); // not a join of north's running attempt
    expect(td.lease).toBeDefined();
    expect(new Set([ta.waitId, tb.waitId, td.waitId]).size).toBe(3);
    expect(await a.attempts.complete(ta.waitId, ta.lease!, { kind: "token", token: "tok-north" })).toBe(true);
    expect((await a.attempts.view(ta.waitId, EXAM, USER)).state).toBe("done");
    expect(await b.attempts.view(ta.waitId, EXAM, USER)).toEqual({ state: "unknown" });
    expect(await b.attempts.claim(ta.waitId, EXAM, USER)).toBeUndefined();
    expect(await d.attempts.claim(ta.waitId, EXAM, USER)).toBeUndefined();
    expect(await a.attempts.claim(ta.waitId, EXAM, USER)).toEqual({ kind: "token", token: "tok-north" });
  });

  it.runIf(runs)("keeps prepared tokens apart", async () => {
    const [a, b] = [scoped("north"), scoped("south")];
    await a.preparedTokens.put(EXAM, USER, "prepared-north", Date.now() + 60_000, "class-1");
    expect(await b.preparedTokens.has(EXAM, USER)).toBe(false);
    expect(await b.preparedTokens.take(EXAM, USER, "class-1")).toBeUndefined();
    expect(await scoped(DEFAULT_ORGANIZATION).preparedTokens.take(EXAM, USER, "class-1")).toBeUndefined();
    expect((await a.preparedTokens.take(EXAM, USER, "class-1"))?.token).toBe("prepared-north");
  });

  it.runIf(runs)("keeps plans, their leases and their progress apart, and lists each organization's plans by its own ids", async () => {
    const [a, b, d] = [scoped("north"), scoped("south"), scoped(DEFAULT_ORGANIZATION)];
    expect(await a.planLeases.lead(EXAM, "instance-a")).toBe(true);
    expect(await b.planLeases.leader(EXAM)).toBeUndefined();
    expect(await b.planLeases.lead(EXAM, "instance-b")).toBe(true); // its own plan: no lease to wait for
    await a.planLeases.publish(EXAM, JSON.stringify({ examId: EXAM, org: "north" }), Date.now() + 60_000);
    expect(await b.planLeases.published(EXAM)).toBeUndefined();
    expect(await d.planLeases.published(EXAM)).toBeUndefined();
    await a.planLeases.record(EXAM, { snapshot: "north" });
    expect(await b.planLeases.progress(EXAM)).not.toHaveProperty("snapshot");
    expect(await a.planLeases.activePlans()).toContain(EXAM);
    expect(await d.planLeases.activePlans()).not.toContain(EXAM);
    expect((await d.planLeases.activePlans()).some((id) => id.startsWith("@"))).toBe(false);
  });

  it.runIf(runs)("keeps each student's launch limit per organization", async () => {
    const [a, b] = [scoped("north"), scoped("south")];
    let decision = await a.launchLimiter.record(EXAM, USER);
    while (decision.allowed) decision = await a.launchLimiter.record(EXAM, USER);
    expect((await a.launchLimiter.check(EXAM, USER)).allowed).toBe(false);
    expect((await b.launchLimiter.check(EXAM, USER)).allowed).toBe(true);
  });
});

describe("the scoped exam key", () => {
  it("keeps the default organization's bare id (an upgraded fleet's keys stay valid) and marks every other one", () => {
    expect(scopedExamKey(DEFAULT_ORGANIZATION, "abc")).toBe("abc");
    expect(scopedExamKey("north", "abc")).toBe("@north/abc");
    expect(scopedExamKey("north", "abc")).not.toBe(scopedExamKey("south", "abc"));
  });
});
