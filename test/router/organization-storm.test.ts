/**
 * A storm in one organization with the other's launches unaffected, on both fleets (in
 * process, and Redis): one router with an `organization` resolver in front of an
 * emulator hosting two schools. North (A) sends 80 students at once against a rate budget
 * of 20 sign-in calls a minute, so most of them get the waiting page; while they wait in
 * north's budget, south's (B) 10 students launch and must all go straight to south's exam
 * host: no waiting page, no 429 from the platform on south's key, every sign-in call
 * counted under south's key.
 *
 * What it pins down is behaviour, not timing: each organization's rate budget (per key),
 * its launch attempts and its students' fair share are its own. A budget shared by the
 * two schools would put south's students behind north's 60 waiting ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator, type EmulatorOrganization } from "../../src/emulator/index.js";
import { inProcessFleet, type Fleet } from "../../src/fleet/fleet.js";
import { redisFleet } from "../../src/fleet/redis-fleet.js";
import { createPlatformClient } from "../../src/platform/index.js";
import { oralAssessments, type OralAssessmentsRouter } from "../../src/router/index.js";
import type { OrganizationInfo } from "../../src/router/shared/organization-info.js";
import { memoryStore } from "../../src/store/memory.js";
import { metaRefresh } from "../support/html-page.js";
import { listenWithHeaderUser, type Listening } from "../support/http.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const redisUp = await redisOrSkip("the organization storm test on the Redis fleet");
const prefix = randomPrefix("orgstorm");
afterAll(() => dropPrefix(prefix));

const SIGN_IN = "/students/sign-in-token";
/** Each organization's budget: sign-in calls per minute (the window outlasts the test). */
const BUDGET = 20;
const STORM = 80;
const QUIET = 10;
const EXAM = "exam-day-1";

/** One sign-in call per student and exam: a fair share kept by exam and student alone would refuse south's students. */
const launchLimit = { burst: 1 };
const fleets: [string, () => Fleet, boolean][] = [
  ["in process", () => inProcessFleet({ launchLimit }), true],
  ["on Redis", () => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, launchLimit, rateLimitPerMinute: BUDGET, rateWindowMs: 60_000, commandTimeoutMs: 3_000 }), redisUp],
];

describe.each(fleets)("a storm in one organization, the fleet %s", (_name, makeFleet, runs) => {
  let emulator: Emulator;
  let north: EmulatorOrganization;
  let south: EmulatorOrganization;
  let fleet: Fleet;
  let router: OralAssessmentsRouter;
  let app: Listening;
  /** Exams made directly on the platform, by organization: the router finds them through resolveClassId. */
  const exams = new Map<string, { classId: string; courseId: string }>();

  beforeAll(async () => {
    if (!runs) return;
    // The platform's own limit is above what either school's budget sends: a 429 would be the budget's failure.
    emulator = await startEmulator({ organizations: [{ id: "north", name: "North High" }, { id: "south", name: "South College" }], rateLimits: { dev: 40 } });
    north = emulator.organization("north");
    south = emulator.organization("south");
    fleet = makeFleet();
    router = oralAssessments({
      organization: (req): OrganizationInfo | undefined => {
        const org = req.get("x-school") === "north" ? north : req.get("x-school") === "south" ? south : undefined;
        return org && { id: org.id, apiKey: org.testKey, baseUrl: emulator.url, examHost: org.examHost };
      },
      // In process each client keeps its own budget; on Redis the fleet's (rateLimitPerMinute) is shared per key.
      organizationClient: { maxRetries: 0, ...(fleet.kind === "redis" ? {} : { rateLimitPerMinute: BUDGET }) },
      fleet,
      store: memoryStore(),
      resolveClassId: (examId, _req, organization) => exams.get(`${organization}/${examId}`),
      canLaunch: "any-signed-in-user",
      // Long enough for a quiet student's launch on a loaded machine (the test asserts
      // they get no waiting page); north's students beyond its budget still get theirs at
      // once, their estimated wait (3 s a slot) being past it.
      waitingPageAfterMs: 2_000,
      logger: { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} },
    });
    app = await listenWithHeaderUser(router, (user) => ({ id: user, email: `${user}@school.test`, firstName: "Ada", lastName: user }));
  });
  afterAll(async () => {
    await app?.close();
    await router?.close();
    await fleet?.close();
    await emulator?.close();
  });

  /**
   * An exam of `org`, made with a client of its own (the router's budget stays untouched).
   * Both schools know it by the same id (`resolveClassId` is the app's answer per
   * organization): a launch attempt or a fair share keyed by exam and student alone would
   * mix north's students with south's.
   */
  async function examOf(org: EmulatorOrganization): Promise<string> {
    const admin = createPlatformClient({ apiKey: org.testKey, baseUrl: emulator.url, rateLimitPerMinute: 1_000 });
    try {
      const course = await admin.courses.create({ name: `${org.name} 101` });
      const cls = await admin.classes.create(course.data._id, { name: "Period 1", startDate: "2026-09-01", endDate: "2027-06-30" });
      const exam = await admin.oralAssessments.create({ name: "Oral", classId: cls.data._id, questions: [{ text: "Why?" }] });
      expect(exam.data._id).toBeTruthy();
      exams.set(`${org.id}/${EXAM}`, { classId: cls.data._id, courseId: course.data._id });
      return EXAM;
    } finally {
      admin.close();
    }
  }

  async function launch(school: string, student: string, examId: string) {
    const res = await fetch(`${app.url}/oral/launch/${examId}`, { redirect: "manual", headers: { "x-school": school, "x-user": student } });
    const body = await res.text();
    return { status: res.status, location: res.headers.get("location") ?? "", waiting: res.status === 202 && metaRefresh(body) !== undefined };
  }

  it.runIf(runs)("sends every quiet student straight to its exam host while the other school's students wait", async () => {
    const northExam = await examOf(north);
    const southExam = await examOf(south);
    const from = emulator.requests.length;

    // North's storm: 80 at once, 20 calls in its budget. Its first answers (a redirect, or
    // the waiting page) are back before south starts, so the 60 or so left are waiting in
    // north's budget for the minute to pass.
    const names = Array.from({ length: STORM }, (_, i) => `student-${i}`);
    const storm = await Promise.all(names.map((name) => launch("north", name, northExam)));
    const stormWaiting = storm.filter((r) => r.waiting).length;
    const stormStraight = storm.filter((r) => r.status === 303).length;
    expect(stormStraight).toBeLessThanOrEqual(BUDGET);
    expect(stormWaiting).toBeGreaterThanOrEqual(STORM - BUDGET);

    // South's students, on the same exam id and named as north's: half of them went
    // straight at north (their one sign-in call spent there), half are waiting there (an
    // attempt pending). Their attempts and fair share are south's own.
    const quietNames = [...names.filter((_, i) => storm[i]!.status === 303).slice(0, QUIET / 2), ...names.filter((_, i) => storm[i]!.waiting)].slice(0, QUIET);
    const quiet = await Promise.all(quietNames.map((name) => launch("south", name, southExam)));
    expect(quiet.map((r) => r.status)).toEqual(Array(QUIET).fill(303));
    expect(quiet.filter((r) => r.waiting)).toEqual([]);
    for (const r of quiet) expect(new URL(r.location).origin).toBe(new URL(south.examHost).origin);

    const southSignIns = emulator.requests.slice(from).filter((r) => r.path === SIGN_IN && r.org === "south");
    expect(southSignIns).toHaveLength(QUIET);
    expect(southSignIns.filter((r) => r.status === 429)).toEqual([]);
    expect(southSignIns.every((r) => r.status >= 200 && r.status < 300)).toBe(true);
    // North's storm stayed in north's budget: never more than it, and nothing refused by the platform.
    const northSignIns = emulator.requests.slice(from).filter((r) => r.path === SIGN_IN && r.org === "north");
    expect(northSignIns.length).toBeLessThanOrEqual(BUDGET);
    expect(northSignIns.filter((r) => r.status === 429)).toEqual([]);
  });
});
