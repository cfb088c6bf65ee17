/**
 * `router.prepare()` with many organizations, on both fleets: the caller says whose exam
 * it is in the resolver's shape, the plan runs on that organization's key, and its tokens
 * go only to that organization's launches, even for an exam id both schools use. Without
 * an organization, or with an unusable one, a 400 `PrepareError` naming `organization`;
 * another school's exam is a 404; the key shows nowhere.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator, type EmulatorOrganization } from "../../src/emulator/index.js";
import { inProcessFleet, type Fleet } from "../../src/fleet/fleet.js";
import { redisFleet } from "../../src/fleet/redis-fleet.js";
import { createPlatformClient } from "../../src/platform/index.js";
import { oralAssessments, PrepareError, type OralAssessmentsRouter } from "../../src/router/index.js";
import type { OrganizationInfo } from "../../src/router/shared/organization-info.js";
import { memoryStore } from "../../src/store/memory.js";
import type { OralStore } from "../../src/store/types.js";
import { assertNoKey } from "../support/canary.js";
import { listenWithHeaderUser, type Listening } from "../support/http.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { TEST_KEY } from "../support/keys.js";
import { rosterOf, USERS } from "../support/users.js";

const redisUp = await redisOrSkip("router.prepare with organizations on the Redis fleet");
const prefix = randomPrefix("orgprep");
afterAll(() => dropPrefix(prefix));

const SIGN_IN = "/students/sign-in-token";
/** One exam id both schools use (each its own exam behind it): only the organization tells their plans apart. */
const EXAM = "exam-day-1";
const inAMinute = () => new Date(Date.now() + 60_000);
const until = async (check: () => boolean | undefined | Promise<boolean | undefined>) => {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
};

const fleets: [string, () => Fleet, boolean][] = [
  ["in process", () => inProcessFleet(), true],
  ["on Redis", () => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, rateLimitPerMinute: 600, commandTimeoutMs: 3_000 }), redisUp],
];

describe.each(fleets)("router.prepare for many organizations, the fleet %s", (_name, makeFleet, runs) => {
  let emulator: Emulator;
  let north: EmulatorOrganization;
  let south: EmulatorOrganization;
  let fleet: Fleet;
  let store: OralStore;
  let router: OralAssessmentsRouter;
  let app: Listening;
  const info = (org: EmulatorOrganization): OrganizationInfo => ({ id: org.id, apiKey: org.testKey, baseUrl: emulator.url, examHost: org.examHost });

  beforeAll(async () => {
    if (!runs) return;
    emulator = await startEmulator({ organizations: [{ id: "north", name: "North High" }, { id: "south", name: "South College" }], rateLimits: { dev: 600 } });
    north = emulator.organization("north");
    south = emulator.organization("south");
    fleet = makeFleet();
    store = memoryStore();
    router = oralAssessments({
      organization: (req) => {
        const org = req.get("x-school") === "north" ? north : req.get("x-school") === "south" ? south : undefined;
        return org && info(org);
      },
      organizationClient: { maxRetries: 0 },
      fleet,
      store,
      canLaunch: "any-signed-in-user",
      logger: { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} },
    });
    app = await listenWithHeaderUser(router, (name) => USERS.find((u) => u.username === name));
    // Each school's exam, known to the router's store as EXAM under that school only.
    for (const org of [north, south]) {
      const admin = createPlatformClient({ apiKey: org.testKey, baseUrl: emulator.url, rateLimitPerMinute: 1_000 });
      try {
        const course = await admin.courses.create({ name: `${org.name} 101` });
        const cls = await admin.classes.create(course.data._id, { name: "Period 1", startDate: "2026-09-01", endDate: "2027-06-30" });
        await store.putAssessment(org.id, { id: EXAM, kind: "oral", classId: cls.data._id, courseId: course.data._id, name: "Oral", data: {}, createdAt: new Date().toISOString() });
      } finally {
        admin.close();
      }
    }
  });
  afterAll(async () => {
    await app?.close();
    await router?.close();
    await fleet?.close();
    await emulator?.close();
  });

  const signIns = (from: number, org: string) => emulator.requests.slice(from).filter((r) => r.path === SIGN_IN && r.org === org);
  async function launch(school: string, user: string) {
    const res = await fetch(`${app.url}/oral/launch/${EXAM}`, { redirect: "manual", headers: { "x-school": school, "x-user": user } });
    await res.text();
    return { status: res.status, origin: new URL(res.headers.get("location") ?? "http://none/").origin };
  }

  it.runIf(runs)("prepares each school's exam on its own key, and hands its tokens only to its own launches", async () => {
    const from = emulator.requests.length;
    // Before any request of theirs reached this router: the organization is built from what the caller gives.
    const northPlan = await router.prepare(EXAM, { startAt: inAMinute(), roster: [rosterOf("ada")], organization: info(north) });
    expect(northPlan).toMatchObject({ examId: EXAM, roster: 1 });
    await router.prepare(EXAM, { startAt: inAMinute(), roster: [rosterOf("bob")], organization: info(south) });
    await until(() => router.preparation(EXAM, "north")?.ready === 1 && router.preparation(EXAM, info(south))?.ready === 1);
    expect(signIns(from, "north")).toHaveLength(1);
    expect(signIns(from, "south")).toHaveLength(1);
    // The fleet's view (on Redis: the leader's figures, recorded shortly after).
    await until(async () => (await router.sharedPreparation(EXAM, "north"))?.ready === 1);
    expect(await router.sharedPreparation(EXAM, "east")).toBeUndefined();
    expect(router.preparation(EXAM)).toBeUndefined(); // no organization named: none of theirs
    expect(router.preparation(EXAM, "east")).toBeUndefined();

    // Ada was prepared under north only: under south she launches on demand, on south's key.
    const before = emulator.requests.length;
    expect(await launch("south", "ada")).toEqual({ status: 303, origin: new URL(south.examHost).origin });
    expect(signIns(before, "south")).toHaveLength(1);
    expect(router.preparation(EXAM, "north")).toMatchObject({ handedOut: 0 });
    // Under north she gets north's prepared token: no call at all.
    const mid = emulator.requests.length;
    expect(await launch("north", "ada")).toEqual({ status: 303, origin: new URL(north.examHost).origin });
    expect(signIns(mid, "north")).toHaveLength(0);
    expect(router.preparation(EXAM, "north")).toMatchObject({ handedOut: 1 });
    // And Bob the other way round.
    const last = emulator.requests.length;
    expect(await launch("north", "bob")).toEqual({ status: 303, origin: new URL(north.examHost).origin });
    expect(await launch("south", "bob")).toEqual({ status: 303, origin: new URL(south.examHost).origin });
    expect(signIns(last, "north")).toHaveLength(1);
    expect(signIns(last, "south")).toHaveLength(0);
    expect(router.preparation(EXAM, "south")).toMatchObject({ handedOut: 1 });
  });

  it.runIf(runs)("refuses a missing or unusable organization (400 naming it, no key shown) and another school's exam (404)", async () => {
    const from = emulator.requests.length;
    const refusal = async (input: Parameters<OralAssessmentsRouter["prepare"]>[1], examId = EXAM) => {
      const error = await router.prepare(examId, input).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(PrepareError);
      assertNoKey([(error as Error).message, JSON.stringify(error), (error as Error).stack], "a PrepareError");
      expect((error as Error).message).not.toContain(south.testKey);
      return error as PrepareError;
    };
    const base = { startAt: inAMinute(), roster: [rosterOf("ada")] };
    const missing = await refusal(base);
    expect([missing.status, missing.errors.map((e) => e.path)]).toEqual([400, ["organization"]]);
    const badId = await refusal({ ...base, organization: { ...info(south), id: "no spaces/here" } });
    expect([badId.status, badId.errors.map((e) => e.path)]).toEqual([400, ["organization"]]);
    const noKey = await refusal({ ...base, organization: { ...info(south), apiKey: "" } });
    expect(noKey.errors[0]!.message).toMatch(/apiKey/);
    const badKey = await refusal({ ...base, organization: { ...info(north), id: "west", apiKey: `not-a-key-${south.testKey}` } });
    expect(badKey.status).toBe(400);
    // An exam the store knows under no such organization.
    const unknown = await refusal({ ...base, organization: { ...info(south), id: "east" } });
    expect(unknown.status).toBe(404);
    expect(signIns(from, "south")).toEqual([]);
    expect(emulator.requests.slice(from)).toEqual([]);
  });
});

describe("router.prepare on a single-organization router", () => {
  it("refuses an organization: its one organization is implied", async () => {
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    const router = oralAssessments({ platform, store: memoryStore(), canLaunch: "any-signed-in-user" });
    try {
      const error = await router.prepare(EXAM, { startAt: inAMinute(), roster: [rosterOf("ada")], organization: { id: "north", apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" } })
        .then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(PrepareError);
      expect((error as PrepareError).errors.map((e) => e.path)).toEqual(["organization"]);
      assertNoKey([(error as Error).message], "a PrepareError");
      // Without one, as before: the exam is unknown to its store.
      const unknown = await router.prepare(EXAM, { startAt: inAMinute(), roster: [rosterOf("ada")] }).then(() => undefined, (e: unknown) => e);
      expect((unknown as PrepareError).status).toBe(404);
    } finally {
      await router.close();
      platform.close();
    }
  });
});
