/**
 * The gradebook (AGS) and its score outbox against a careless or hostile LMS (the stand-in
 * of test/support/fake-lms.ts): a line item container ignoring its filters, endless or
 * foreign next pages, 4xx and 5xx answers, two instances sharing one store, a learner
 * graded who launched the exam from two courses.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import { agsSender } from "../../src/lti/gradebook/ags.js";
import { createGradebook } from "../../src/lti/gradebook/gradebook.js";
import { readGradebookOptions, type GradebookSettings } from "../../src/lti/options/gradebook-options.js";
import { backoffMs, ScoreOutbox } from "../../src/lti/gradebook/outbox.js";
import { RegistrationSource } from "../../src/lti/lms/registration-source.js";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { LTI_SCOPES, type ServiceAccess } from "../../src/lti/lms/service-access.js";
import { memoryStore } from "../../src/store/memory.js";
import type { LtiScoreEntry } from "../../src/store/lti-gradebook-types.js";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { freshAccess, gradebookFleet, json, lmsGate, quiet, useFakeLms, withOtherLms, type FakeLms } from "../support/fake-lms.js";
import { TOOL_KEY_PEM } from "../support/lti.js";

function gradebookSettings(extra: Partial<GradebookSettings> = {}): GradebookSettings {
  const problems = new ProblemList();
  const s = readGradebookOptions({ firstRetryMs: 600_000, maxRetryMs: 3_600_000, ...extra }, problems)!;
  problems.throwIfAny("test");
  return s;
}

const ALL_AGS = [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly, LTI_SCOPES.score];

function scoreEntry(lms: FakeLms, id: string, userId: string, ags: LtiScoreEntry["ags"]): LtiScoreEntry {
  return {
    id, key: { issuer: lms.url, clientId: "client-9", deploymentId: "dep-1", contextId: "course-1", kind: "oral", examId: "exam-1" },
    userId, student: { email: `${userId}@school.example` }, label: "Oral exam exam-1", ags,
    score: { activityProgress: "Started", gradingProgress: "NotReady", timestamp: new Date().toISOString(), comment: "Started." },
    queuedAt: new Date().toISOString(),
  };
}

let lms: FakeLms;
let registration: Registration;
let access: ServiceAccess;
let store: OralStoreWithLti;

function outboxFor(settings: GradebookSettings): ScoreOutbox {
  const send = agsSender({ store, access, settings, logger: quiet, loopbackHttp: true, registration: async () => registration });
  return new ScoreOutbox(store, send, settings, quiet, lmsGate(settings.perLmsConcurrency));
}
const records = async (userId?: string) => (await store.listLtiScores("default", { kind: "oral", examId: "exam-1", limit: 100 })).filter((r) => userId === undefined || r.userId === userId);

const fake = useFakeLms();
beforeAll(() => {
  ({ lms, registration } = fake);
});
const fresh = () => {
  access = freshAccess();
  store = memoryStore();
};

describe("AGS: the line item the tool posts to", () => {
  it("takes only the item whose resourceId is the exam's, from a container that ignores the resource_id filter", async () => {
    fresh();
    lms.handle = (hit, res) => {
      if (hit.method === "GET" && hit.path === "/lineitems") {
        return json(res, 200, [{ id: `${lms.url}/lineitems/other`, resourceId: "exam-2", tag: "oral-assessment" }, { id: `${lms.url}/lineitems/mine`, resourceId: "exam-1", tag: "oral-assessment" }]);
      }
      if (hit.method === "POST" && hit.path.endsWith("/scores")) return json(res, 204, undefined);
      json(res, 404, { error: "no" });
    };
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "sent" });
    expect(lms.to("GET", "/lineitems")[0]!.query.get("resource_id")).toBe("exam-1");
    expect(lms.to("POST", "/lineitems/mine/scores")).toHaveLength(1);
    expect(lms.to("POST", "/lineitems/other/scores")).toEqual([]);
    expect(lms.to("POST", "/lineitems")).toEqual([]);
    expect(await store.getLtiLineItem("default", scoreEntry(lms, "x", "u", { scope: [] }).key)).toBe(`${lms.url}/lineitems/mine`);
  });

  it("reads at most 20 pages of line items looking for its own, then creates it", async () => {
    fresh();
    lms.handle = (hit, res) => {
      if (hit.method === "GET" && hit.path === "/lineitems") {
        const page = Number(hit.query.get("page") ?? 1);
        // An LMS whose next link never ends (here: 30 pages), none of them the tool's item.
        return json(res, 200, [], page < 30 ? { Link: `<${lms.url}/lineitems?page=${page + 1}>; rel="next"` } : {});
      }
      if (hit.method === "POST" && hit.path === "/lineitems") return json(res, 201, { id: `${lms.url}/lineitems/made` });
      if (hit.method === "POST" && hit.path === "/lineitems/made/scores") return json(res, 204, undefined);
      json(res, 404, { error: "no" });
    };
    const ags = { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS };
    // Two learners' first scores at once: one search, one item.
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", ags), scoreEntry(lms, "s2", "u2", ags)]);
    const outbox = outboxFor(gradebookSettings());
    await outbox.drain();
    expect(lms.to("GET", "/lineitems")).toHaveLength(20);
    expect(lms.to("POST", "/lineitems")).toHaveLength(1);
    expect(lms.to("POST", "/lineitems/made/scores")).toHaveLength(2);
    expect((await records()).map((r) => r.state)).toEqual(["sent", "sent"]);
    // A later score of the exam in this course goes to the item the store kept: no search, no second column.
    await store.addLtiScores("default", [scoreEntry(lms, "s3", "u3", ags)]);
    await outbox.drain();
    expect(lms.to("GET", "/lineitems")).toHaveLength(20);
    expect(lms.to("POST", "/lineitems")).toHaveLength(1);
    expect(lms.to("POST", "/lineitems/made/scores")).toHaveLength(3);
  });

  it("does not follow a line items page on another origin: the token never goes there, and no second column is made", async () => {
    fresh();
    await withOtherLms(async (other) => {
    other.handle = (_hit, res) => json(res, 200, []);
    lms.handle = (hit, res) => (hit.method === "GET" && hit.path === "/lineitems" ? json(res, 200, [], { Link: `<${other.url}/steal?page=2>; rel="next"` }) : json(res, 404, {}));
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS })]);
    await outboxFor(gradebookSettings()).drain();
    expect(other.hits).toEqual([]);
    expect(lms.to("POST", "/lineitems")).toEqual([]);
    expect((await records())[0]).toMatchObject({ state: "failed", attempts: 1, lastError: expect.stringContaining(`another origin (${other.url})`) });
    });
  });

  it("follows a relative next link of the line items on the LMS's own origin", async () => {
    fresh();
    lms.handle = (hit, res) => {
      if (hit.method === "GET" && hit.path === "/lineitems") {
        return hit.query.get("page") === "2"
          ? json(res, 200, [{ id: `${lms.url}/lineitems/mine`, resourceId: "exam-1" }])
          : json(res, 200, [], { Link: '</lineitems?page=2>; rel="next"' });
      }
      if (hit.method === "POST" && hit.path === "/lineitems/mine/scores") return json(res, 204, undefined);
      json(res, 404, {});
    };
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "sent" });
    expect(lms.to("GET", "/lineitems")).toHaveLength(2);
    expect(lms.to("POST", "/lineitems")).toEqual([]);
  });

  it("a link without the score scope is failed at once: no token asked, nothing posted", async () => {
    fresh();
    lms.handle = (_hit, res) => json(res, 204, undefined);
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, scope: [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly] })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "failed", attempts: 1, lastError: expect.stringMatching(/score scope/) });
    expect(lms.hits).toEqual([]);
  });

  it("asks for a token with only the AGS scopes the launch granted", async () => {
    fresh();
    lms.handle = (hit, res) => (hit.method === "POST" && hit.path === "/lineitems/li-1/scores" ? json(res, 204, undefined) : json(res, 404, {}));
    // The link's own line item (its lineitem claim) is used as is: no search in lineitems.
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, lineItems: `${lms.url}/lineitems`, scope: [LTI_SCOPES.score] })]);
    await outboxFor(gradebookSettings()).drain();
    expect((await records())[0]).toMatchObject({ state: "sent" });
    expect(lms.to("GET", "/lineitems")).toEqual([]);
    const tokens = lms.to("POST", "/token");
    expect(tokens).toHaveLength(1);
    expect(new URLSearchParams(tokens[0]!.body).get("scope")).toBe(LTI_SCOPES.score);
    expect(lms.to("POST", "/lineitems/li-1/scores")[0]!.authorization).toBe(`Bearer ${await access.token(registration, [LTI_SCOPES.score])}`);
  });
});

describe("grades of a learner who launched the exam from two courses", () => {
  it("the grade goes to both courses' gradebooks: one entry per course (context), not one per LMS user", async () => {
    fresh();
    lms.handle = (hit, res) => (hit.method === "POST" && hit.path.endsWith("/scores") ? json(res, 204, undefined) : json(res, 404, {}));
    // The same LMS user (u1) under one issuer, client and deployment, in course-1 and course-2.
    const inCourse = (contextId: string) => {
      const e = scoreEntry(lms, `started:${contextId}`, "u1", { lineItem: `${lms.url}/${contextId}/lineitem`, scope: ALL_AGS });
      return { ...e, key: { ...e.key, contextId } };
    };
    await store.addLtiScores("default", [inCourse("course-1"), inCourse("course-2")]);
    const problems = new ProblemList();
    const lti = resolveLtiSettings({ keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [{ issuer: lms.url, clientId: "client-9", authorizationUrl: `${lms.url}/auth`, jwksUrl: `${lms.url}/jwks`, tokenUrl: `${lms.url}/token`, deployments: ["dep-1"] }] }, problems)!;
    problems.throwIfAny("test");
    const gradebook = createGradebook({ settings: gradebookSettings({ pollMs: 50 }), store, access, source: new RegistrationSource(lti.registrations, store, quiet), keys: lti.keys, logger: quiet, loopbackHttp: true, ...gradebookFleet() });
    try {
      expect(await gradebook.queueGrades("default", "oral", "exam-1", [{ student: "u1@school.example", scoreGiven: 8 }])).toEqual([{ student: "u1@school.example", queued: 2 }]);
      const graded = (course: string) => lms.to("POST", `/${course}/lineitem/scores`).map((h) => JSON.parse(h.body) as { userId: string; scoreGiven?: number }).filter((b) => b.scoreGiven !== undefined);
      await vi.waitFor(() => expect([graded("course-1"), graded("course-2")]).toEqual([[expect.objectContaining({ userId: "u1", scoreGiven: 8 })], [expect.objectContaining({ userId: "u1", scoreGiven: 8 })]]), { timeout: 10_000, interval: 20 });
    } finally {
      await gradebook.close();
    }
  });
});

describe("the score outbox against LMS answers", () => {
  it("fails a refusal (400, 404) at once; retries 429 and 503 after a backoff", async () => {
    fresh();
    const answers: Record<string, number> = { u400: 400, u404: 404, u429: 429, u503: 503 };
    lms.handle = (hit, res) => json(res, answers[(JSON.parse(hit.body) as { userId: string }).userId] ?? 500, { error: "x" });
    const ags = { lineItem: `${lms.url}/lineitems/li-1`, scope: ALL_AGS };
    await store.addLtiScores("default", Object.keys(answers).map((u) => scoreEntry(lms, `s-${u}`, u, ags)));
    const before = Date.now();
    await outboxFor(gradebookSettings({ firstRetryMs: 600_000 })).drain();
    for (const u of ["u400", "u404"]) expect((await records(u))[0], u).toMatchObject({ state: "failed", attempts: 1 });
    for (const u of ["u429", "u503"]) {
      const r = (await records(u))[0]!;
      expect(r, u).toMatchObject({ state: "pending", attempts: 1 });
      // 600 s ± 20 %.
      expect(r.nextAtMs - before, u).toBeGreaterThanOrEqual(480_000);
      expect(r.nextAtMs - Date.now(), u).toBeLessThanOrEqual(720_000);
    }
    expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(4);
  });

  it("gives up after maxAttempts", async () => {
    fresh();
    lms.handle = (_hit, res) => json(res, 503, { error: "down" });
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, scope: ALL_AGS })]);
    const outbox = outboxFor(gradebookSettings({ maxAttempts: 2, firstRetryMs: 10, maxRetryMs: 10 }));
    for (let round = 0; round < 5; round++) {
      await outbox.drain();
      const r = (await records())[0]!;
      if (r.state !== "pending") break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, r.nextAtMs - Date.now()) + 5));
    }
    expect((await records())[0]).toMatchObject({ state: "failed", attempts: 2 });
    expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(2);
  });

  it("a score leased by one instance is not posted by another", async () => {
    fresh();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    lms.handle = (hit, res) => {
      // The first post hangs until released (a slow LMS); any other is answered at once.
      if (lms.to("POST", hit.path).length === 1) void held.then(() => json(res, 204, undefined));
      else json(res, 204, undefined);
    };
    await store.addLtiScores("default", [scoreEntry(lms, "s1", "u1", { lineItem: `${lms.url}/lineitems/li-1`, scope: ALL_AGS })]);
    const settings = gradebookSettings({ leaseMs: 60_000 });
    const a = outboxFor(settings);
    const b = outboxFor(settings);
    const first = a.drain();
    await vi.waitFor(() => expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(await b.drain()).toBe(0);
    release();
    expect(await first).toBe(1);
    expect(lms.to("POST", "/lineitems/li-1/scores")).toHaveLength(1);
    expect((await records())[0]).toMatchObject({ state: "sent", attempts: 1 });
  });

  it("backs off exponentially from firstRetryMs up to maxRetryMs, ±20 %", () => {
    const s = { firstRetryMs: 100, maxRetryMs: 1_000 };
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, s, mid))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffMs(3, s, () => 0)).toBe(320);
    expect(backoffMs(3, s, () => 1)).toBe(480);
  });
});
