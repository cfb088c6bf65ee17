/**
 * The instructor API beyond creation: classes, oral assessments and role-plays read,
 * changed and deleted through the router; lists that come from the platform (so records
 * made elsewhere appear and become launchable); and the role-play launch.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, DEFAULT_ORGANIZATION, memoryStore } from "../../src/index.js";
import { ROLEPLAY_LIMITS } from "../../src/platform/schemas.js";
import type { PlatformClient } from "../../src/platform/types.js";
import { metaRefresh } from "../support/html-page.js";
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";
import { startStack, type Stack } from "../support/stack.js";

const store = memoryStore();
let stack: Stack;
/** The same org and env as the router's, but not through it: "made elsewhere". */
let outside: PlatformClient;
/** These tests make more calls than a dev key's 60 a minute; the budget is not what they test. */
const RATE = { rateLimitPerMinute: 10_000 };
beforeAll(async () => {
  stack = await startStack({ emulator: { rateLimits: { dev: 10_000, prod: 10_000 } }, client: RATE, router: { store, listCacheMs: 60_000 } });
  outside = createPlatformClient({ apiKey: TEST_KEY, baseUrl: stack.emulator.url, ...RATE });
});
afterAll(async () => {
  outside.close();
  await stack.close();
});
afterEach(() => { stack.emulator.clearFaults(); });

const ids = (res: { body: { data: { _id: string }[] } }) => res.body.data.map((r) => r._id);
const roleplayBody = (classId: string, extra: Record<string, unknown> = {}) => ({
  name: "Customer call", classId, roleplayStudentRole: "Support agent", roleplayCoralRole: "Upset customer",
  roleplayScenario: "s".repeat(ROLEPLAY_LIMITS.roleplayScenario.min),
  roleplayScenarioDetails: "d".repeat(ROLEPLAY_LIMITS.roleplayScenarioDetails.min),
  ...extra,
});

async function seedClass(ines: Awaited<ReturnType<Stack["login"]>>) {
  const course = await ines.post("/oral/courses").send({ name: "Chemistry" }).expect(201);
  const courseId: string = course.body.data._id;
  const cls = await ines.post(`/oral/courses/${courseId}/classes`).send({ name: "Lab A" }).expect(201);
  return { courseId, classId: cls.body.data._id as string };
}

describe("classes", () => {
  it("reads, updates (only the fields given) and deletes a class; its exams' launch links then show the 404 page", async () => {
    const ines = await stack.login("ines");
    const { courseId, classId } = await seedClass(ines);
    const exam = await ines.post("/oral/oral-assessments").send({ name: "Titration", classId }).expect(201);

    const got = await ines.get(`/oral/courses/${courseId}/classes/${classId}`).expect(200);
    expect(got.body.data).toMatchObject({ _id: classId, name: "Lab A" });
    const sent = stack.track();
    const updated = await ines.put(`/oral/courses/${courseId}/classes/${classId}`).send({ classMode: "online" }).expect(200);
    expect(updated.body.data).toMatchObject({ name: "Lab A", classMode: "online" });
    expect(sent().map((r) => [r.method, r.body])).toEqual([["PUT", { classMode: "online" }]]);
    // The cached list was refreshed by the write.
    const listed = await ines.get(`/oral/courses/${courseId}/classes`).expect(200);
    expect(listed.body.data.find((c: { _id: string }) => c._id === classId)).toMatchObject({ classMode: "online" });

    const ada = await stack.login("ada");
    await ada.get(`/oral/launch/${exam.body.data._id}`).expect(303);
    await ines.delete(`/oral/courses/${courseId}/classes/${classId}`).expect(204);
    expect(stack.emulator.requests.at(-1)).toMatchObject({ method: "DELETE", path: `/courses/${courseId}/classes/${classId}` });
    await ines.get(`/oral/courses/${courseId}/classes/${classId}`).expect(404);
    expect(ids(await ines.get(`/oral/courses/${courseId}/classes`).expect(200))).not.toContain(classId);
    // At once, although the launch had just looked the exam up (and cached it).
    const gone = await ada.get(`/oral/launch/${exam.body.data._id}`).expect(404);
    expect(gone.text).toMatch(/could not find this exam/i);
    await ines.delete(`/oral/courses/${courseId}/classes/${classId}`).expect(404);
  });

  it("lists a class created outside the router, and an exam made outside it is then launchable", async () => {
    const ines = await stack.login("ines");
    const { courseId } = await seedClass(ines);
    // Warm the cache first: the router's own create must refresh it, the outside one cannot.
    await ines.get(`/oral/courses/${courseId}/classes`).expect(200);
    const made = await outside.classes.create(courseId, { name: "Made in the platform UI" });
    const exam = await outside.oralAssessments.create({ name: "Outside exam", classId: made.data._id });

    const ada = await stack.login("ada");
    // Not known yet: no store record, no resolveClassId.
    await ada.get(`/oral/launch/${exam.data._id}`).expect(404);

    await ines.post(`/oral/courses/${courseId}/classes`).send({ name: "Through the router" }).expect(201);
    const classes = await ines.get(`/oral/courses/${courseId}/classes`).expect(200);
    expect(classes.body.data.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(["Made in the platform UI", "Through the router"]));
    expect(await store.getClass(DEFAULT_ORGANIZATION, made.data._id)).toMatchObject({ courseId, name: "Made in the platform UI" });

    const exams = await ines.get(`/oral/classes/${made.data._id}/oral-assessments`).expect(200);
    expect(ids(exams)).toEqual([exam.data._id]);
    const launched = await ada.get(`/oral/launch/${exam.data._id}`).expect(303);
    expect(new URL(launched.headers.location ?? "").pathname).toBe(`/exam/${exam.data._id}`);
    // The course came from the class the list recorded.
    expect(await store.getAssessment(DEFAULT_ORGANIZATION, exam.data._id)).toMatchObject({ kind: "oral", classId: made.data._id, courseId });
  });

  it("caches platform lists for listCacheMs: a change made elsewhere shows only after a write through the router", async () => {
    const ines = await stack.login("ines");
    const { classId } = await seedClass(ines);
    await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200);
    const sent = stack.track();
    await outside.oralAssessments.create({ name: "Elsewhere", classId });
    expect(ids(await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200))).toEqual([]);
    expect(sent().filter((r) => r.method === "GET")).toEqual([]);
    const mine = await ines.post("/oral/oral-assessments").send({ name: "Mine", classId }).expect(201);
    expect(ids(await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200))).toHaveLength(2);
    expect(ids(await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200))).toContain(mine.body.data._id);
  });

  it("keeps a record the store marked deleted hidden while the platform still lists it", async () => {
    const ines = await stack.login("ines");
    const { classId } = await seedClass(ines);
    const a = await ines.post("/oral/oral-assessments").send({ name: "Kept", classId }).expect(201);
    const b = await ines.post("/oral/oral-assessments").send({ name: "Gone here", classId }).expect(201);
    // Another instance deleted it and its platform call has not landed yet.
    await store.deleteAssessment(DEFAULT_ORGANIZATION, b.body.data._id);
    await ines.post("/oral/oral-assessments").send({ name: "Refresh", classId }).expect(201);
    const listed = ids(await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200));
    expect(listed).toContain(a.body.data._id);
    expect(listed).not.toContain(b.body.data._id);
    expect(await store.getAssessment(DEFAULT_ORGANIZATION, b.body.data._id)).toBeUndefined();
  });

  it("refuses bad input with 400 naming the field and sends nothing", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    const res = await ines.put("/oral/courses/c1/classes/k1").send({ classMode: "remote" }).expect(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(["classMode"]);
    await ines.put("/oral/courses/c1/classes/k1").send({}).expect(400);
    await ines.put("/oral/oral-assessments/e1").send({ duration: -1 }).expect(400)
      .expect((r) => expect(r.body.errors[0].path).toBe("duration"));
    expect(sent()).toEqual([]);
  });
});

describe("oral assessments", () => {
  it("reads, updates and deletes an assessment; a created one without questions gets the platform's fallback question", async () => {
    const ines = await stack.login("ines");
    const { classId } = await seedClass(ines);
    const exam = await ines.post("/oral/oral-assessments").send({ name: "No questions", classId }).expect(201);
    const examId: string = exam.body.data._id;
    // Nothing was sent for questions: the platform made one up.
    expect(stack.emulator.requests.at(-1)?.body).not.toHaveProperty("questions");
    const got = await ines.get(`/oral/oral-assessments/${examId}`).expect(200);
    expect(got.body.data.questions).toHaveLength(1);
    expect(got.body.data.questions[0].text).toEqual(expect.any(String));

    const updated = await ines.put(`/oral/oral-assessments/${examId}`).send({ name: "Renamed", duration: 900 }).expect(200);
    expect(updated.body.data).toMatchObject({ name: "Renamed", duration: 900 });
    expect(await store.getAssessment(DEFAULT_ORGANIZATION, examId)).toMatchObject({ name: "Renamed", classId });

    const ada = await stack.login("ada");
    await ada.get(`/oral/launch/${examId}`).expect(303);
    await ines.delete(`/oral/oral-assessments/${examId}`).expect(204);
    expect(stack.emulator.requests.at(-1)).toMatchObject({ method: "DELETE", path: `/oral-assessments/${examId}` });
    await ines.get(`/oral/oral-assessments/${examId}`).expect(404);
    expect(ids(await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200))).toEqual([]);
    await ada.get(`/oral/launch/${examId}`).expect(404);
  });
});

describe("role-plays", () => {
  it("creates, lists, reads, updates and deletes a role-play, launched on /exam/<id>/roleplay", async () => {
    const ines = await stack.login("ines");
    const { courseId, classId } = await seedClass(ines);
    const created = await ines.post("/oral/roleplays").send(roleplayBody(classId)).expect(201);
    const id: string = created.body.data._id;
    expect(stack.emulator.requests.at(-1)).toMatchObject({ method: "POST", path: "/roleplay" });
    expect(await store.getAssessment(DEFAULT_ORGANIZATION, id)).toMatchObject({ kind: "roleplay", classId, courseId });
    // Role-plays and oral assessments are listed apart.
    expect(ids(await ines.get(`/oral/classes/${classId}/roleplays`).expect(200))).toEqual([id]);
    expect(ids(await ines.get(`/oral/classes/${classId}/oral-assessments`).expect(200))).toEqual([]);
    await ines.get(`/oral/roleplays/${id}`).expect(200).expect((r) => expect(r.body.data.roleplayCoralRole).toBe("Upset customer"));
    await ines.put(`/oral/roleplays/${id}`).send({ roleplayDuration: 300 }).expect(200)
      .expect((r) => expect(r.body.data.roleplayDuration).toBe(300));

    const ada = await stack.login("ada");
    const sent = stack.track();
    const res = await ada.get(`/oral/launch/roleplay/${id}`).expect(303);
    const url = new URL(res.headers.location ?? "");
    expect(`${url.origin}${url.pathname}`).toBe(`${stack.emulator.examHost}/exam/${id}/roleplay`);
    expect(url.searchParams.get("__clerk_ticket")).toMatch(/^signin_/);
    expect(sent()[0]?.body).toMatchObject({ classId, courseId, orgInternalId: "u-ada" });
    // The exam page accepts the ticket on the role-play page.
    const page = await fetch(url);
    expect(page.status).toBe(200);
    // A role-play is not an oral exam, and the other way round.
    await ada.get(`/oral/launch/${id}`).expect(404);
    const oral = await ines.post("/oral/oral-assessments").send({ name: "Oral", classId }).expect(201);
    await ada.get(`/oral/launch/roleplay/${oral.body.data._id}`).expect(404);

    await ines.delete(`/oral/roleplays/${id}`).expect(204);
    expect(stack.emulator.requests.at(-1)).toMatchObject({ method: "DELETE", path: `/roleplay/${id}` });
    expect(ids(await ines.get(`/oral/classes/${classId}/roleplays`).expect(200))).toEqual([]);
    await ada.get(`/oral/launch/roleplay/${id}`).expect(404);
  });

  it("refuses scenario texts outside the length limits with 400 naming the field, sending nothing", async () => {
    const ines = await stack.login("ines");
    const sent = stack.track();
    const { min: sMin, max: sMax } = ROLEPLAY_LIMITS.roleplayScenario;
    const { min: dMin } = ROLEPLAY_LIMITS.roleplayScenarioDetails;
    const short = await ines.post("/oral/roleplays").send(roleplayBody("k1", { roleplayScenario: "s".repeat(sMin - 1) })).expect(400);
    expect(short.body.errors.map((e: { path: string }) => e.path)).toEqual(["roleplayScenario"]);
    expect(short.body.errors[0].message).toMatch(/at least 150/);
    const long = await ines.post("/oral/roleplays").send(roleplayBody("k1", { roleplayScenario: "s".repeat(sMax + 1) })).expect(400);
    expect(long.body.errors[0]).toMatchObject({ path: "roleplayScenario", message: expect.stringMatching(/at most 3000/) });
    // Padding does not count: the length is taken after trimming.
    const padded = await ines.post("/oral/roleplays")
      .send(roleplayBody("k1", { roleplayScenarioDetails: ` ${"d".repeat(dMin - 1)} ` })).expect(400);
    expect(padded.body.errors.map((e: { path: string }) => e.path)).toEqual(["roleplayScenarioDetails"]);
    await ines.put("/oral/roleplays/r1").send({ roleplayScenarioDetails: "too short" }).expect(400)
      .expect((r) => expect(r.body.errors[0].path).toBe("roleplayScenarioDetails"));
    expect(sent()).toEqual([]);
  });

  it("shows the waiting page under a slow platform, refreshing back to the role-play launch path", async () => {
    const slow = await startStack({ useEmulator: stack.emulator, client: RATE, router: { waitingPageAfterMs: 200, launchWaitMs: 5_000 } });
    try {
      const ines = await slow.login("ines");
      const { classId } = await seedClass(ines);
      const created = await ines.post("/oral/roleplays").send(roleplayBody(classId)).expect(201);
      const id: string = created.body.data._id;
      stack.emulator.fault({ type: "hang", count: 1, pathPrefix: "/students/sign-in-token" });
      const ada = await slow.login("ada");
      const res = await ada.get(`/oral/launch/roleplay/${id}`).expect(202);
      const refresh = metaRefresh(res.text)?.url;
      expect(refresh).toMatch(new RegExp(`^/oral/launch/roleplay/${id}\\?wait=`));
    } finally { await slow.close(); }
  });
});

describe("environments", () => {
  it("keeps dev and prod apart both ways: a router on one key does not list or launch the other's records", async () => {
    const live = await startStack({ useEmulator: stack.emulator, client: { apiKey: LIVE_KEY, ...RATE } });
    try {
      const devInes = await stack.login("ines");
      const liveInes = await live.login("ines");
      const dev = await seedClass(devInes);
      const prod = await seedClass(liveInes);
      const devRoleplay = await devInes.post("/oral/roleplays").send(roleplayBody(dev.classId)).expect(201);
      const prodRoleplay = await liveInes.post("/oral/roleplays").send(roleplayBody(prod.classId)).expect(201);

      await liveInes.get(`/oral/courses/${dev.courseId}/classes/${dev.classId}`).expect(404);
      await devInes.get(`/oral/courses/${prod.courseId}/classes/${prod.classId}`).expect(404);
      await liveInes.get(`/oral/roleplays/${devRoleplay.body.data._id}`).expect(404);
      await devInes.get(`/oral/roleplays/${prodRoleplay.body.data._id}`).expect(404);
      expect(ids(await liveInes.get(`/oral/classes/${dev.classId}/roleplays`).expect(200))).toEqual([]);
      expect(ids(await devInes.get(`/oral/classes/${prod.classId}/roleplays`).expect(200))).toEqual([]);
      await liveInes.delete(`/oral/roleplays/${devRoleplay.body.data._id}`).expect(404);
      // Still there in its own environment.
      await devInes.get(`/oral/roleplays/${devRoleplay.body.data._id}`).expect(200);
    } finally { await live.close(); }
  });
});
