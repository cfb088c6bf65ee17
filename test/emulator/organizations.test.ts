/**
 * One emulator standing in for two schools: each organization has its own keys, records,
 * rate window and exam host (an origin of its own), over real HTTP.
 */
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { startEmulator, type Emulator, type EmulatorOrganization } from "../../src/emulator/index.js";
import { assertNoKey } from "../support/canary.js";
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";
import { CLASS, COURSE, call, seed, student } from "./helpers.js";

let emu: Emulator;
let north: EmulatorOrganization;
let south: EmulatorOrganization;
beforeAll(async () => {
  // North uses this run's canary keys, so the key canary watches them; south's are random.
  emu = await startEmulator({
    organizations: [
      { id: "north", name: "North High", testKeys: [TEST_KEY], liveKeys: [LIVE_KEY] },
      { id: "south", name: "South College" },
    ],
    rateLimits: { dev: 10_000 },
  });
});
afterAll(() => emu.close());
beforeEach(() => {
  emu.reset();
  north = emu.organization("north");
  south = emu.organization("south");
});

const as = (org: EmulatorOrganization) => ({ key: org.testKey });

async function tokenFor(org: EmulatorOrganization, classId: string, n = 1): Promise<string> {
  const res = await call(emu, "POST", "/students/sign-in-token", { ...student(n), classId }, as(org));
  if (res.status !== 200) throw new Error(`sign-in-token answered ${res.status}`);
  return res.body.data.token as string;
}

async function open(url: string, cookie?: string) {
  const res = await fetch(url, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const ids = (res: { body: { data: { _id: string }[] } }) => res.body.data.map((r) => r._id);

describe("two organizations on one emulator", () => {
  it("shows each organization with its own keys and its own exam host origin, the first as testKey/liveKey/examHost", () => {
    expect(emu.organizations.map((o) => [o.id, o.name])).toEqual([["north", "North High"], ["south", "South College"]]);
    expect(north.testKey).toBe(TEST_KEY);
    expect(south.testKey).toMatch(/^svc_test_/);
    expect(south.liveKey).toMatch(/^svc_live_/);
    expect(new Set([north.testKey, north.liveKey, south.testKey, south.liveKey]).size).toBe(4);
    const origins = [emu.url, north.examHost, south.examHost].map((u) => new URL(u).origin);
    expect(new Set(origins).size).toBe(3);
    expect([emu.testKey, emu.liveKey, emu.examHost]).toEqual([north.testKey, north.liveKey, north.examHost]);
    expect(() => emu.organization("east")).toThrow(/No organization "east".*north, south/);
  });

  it("prints organizations and the emulator with their keys redacted", () => {
    const printed = `${JSON.stringify(emu)} ${inspect(emu, { showHidden: true, depth: 8 })} ${JSON.stringify(emu.organizations)} ${inspect(emu.organizations, { showHidden: true, depth: 8 })}`;
    expect(printed).toContain("South College");
    expect(printed).toContain(south.examHost);
    for (const key of [north.testKey, north.liveKey, south.testKey, south.liveKey]) expect(printed).not.toContain(key);
  });

  it("keeps lists apart: each key lists its own courses, classes, exams and role-plays only", async () => {
    const n = await seed(emu, as(north));
    const s = await seed(emu, as(south));
    const roleplay = { name: "At the pharmacy", roleplayStudentRole: "Patient", roleplayCoralRole: "Pharmacist", roleplayScenario: "s".repeat(150), roleplayScenarioDetails: "d".repeat(300) };
    const nRoleplay = await call(emu, "POST", "/roleplay", { ...roleplay, classId: n.classId }, as(north));
    const sRoleplay = await call(emu, "POST", "/roleplay", { ...roleplay, classId: s.classId }, as(south));

    expect(ids(await call(emu, "GET", "/courses", undefined, as(north)))).toEqual([n.courseId]);
    expect(ids(await call(emu, "GET", "/courses", undefined, as(south)))).toEqual([s.courseId]);
    expect(ids(await call(emu, "GET", "/oral-assessments", undefined, as(north)))).toEqual([n.examId]);
    expect(ids(await call(emu, "GET", "/oral-assessments", undefined, as(south)))).toEqual([s.examId]);
    expect(ids(await call(emu, "GET", "/roleplay", undefined, as(north)))).toEqual([nRoleplay.body.data._id]);
    expect(ids(await call(emu, "GET", "/roleplay", undefined, as(south)))).toEqual([sRoleplay.body.data._id]);
    // Filtering by the other school's class finds nothing rather than its exams.
    expect(ids(await call(emu, "GET", `/oral-assessments?classId=${s.classId}`, undefined, as(north)))).toEqual([]);
    expect(ids(await call(emu, "GET", `/courses/${n.courseId}/classes`, undefined, as(north)))).toEqual([n.classId]);
  });

  it("answers 403 forbidden to one organization's key for the other's ids, and changes nothing", async () => {
    const s = await seed(emu, as(south));
    const refusals = [
      await call(emu, "GET", `/courses/${s.courseId}`, undefined, as(north)),
      await call(emu, "GET", `/courses/${s.courseId}/classes`, undefined, as(north)),
      await call(emu, "GET", `/courses/${s.courseId}/classes/${s.classId}`, undefined, as(north)),
      await call(emu, "POST", `/courses/${s.courseId}/classes`, CLASS, as(north)),
      await call(emu, "GET", `/oral-assessments/${s.examId}`, undefined, as(north)),
      await call(emu, "PUT", `/courses/${s.courseId}`, { name: "Taken over" }, as(north)),
      await call(emu, "DELETE", `/oral-assessments/${s.examId}`, undefined, as(north)),
      await call(emu, "POST", "/oral-assessments", { name: "Sneaky", classId: s.classId }, as(north)),
      await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId: s.classId }, as(north)),
    ];
    expect(refusals.map((r) => [r.status, r.body.error.code])).toEqual(Array(refusals.length).fill([403, "forbidden"]));
    expect((await call(emu, "GET", `/courses/${s.courseId}`, undefined, as(south))).body.data.name).toBe(COURSE.name);
    expect((await call(emu, "GET", `/oral-assessments/${s.examId}`, undefined, as(south))).status).toBe(200);
    expect(emu.state().students).toEqual([]);
    expect(emu.state().tickets).toEqual([]);
  });

  it("keeps students and users apart: one person in both schools is two users", async () => {
    const n = await seed(emu, as(north));
    const s = await seed(emu, as(south));
    const inNorth = await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId: n.classId }, as(north));
    const inSouth = await call(emu, "POST", "/students/sign-in-token", { ...student(1), classId: s.classId }, as(south));
    expect(inSouth.body.data.created).toBe(true);
    expect(inSouth.body.data.userId).not.toBe(inNorth.body.data.userId);
    expect(emu.state().students.map((st) => [st.org, st.classId])).toEqual([["north", n.classId], ["south", s.classId]]);
  });

  it("tags every record in state() and every request in the log with its organization, over HTTP too, without keys", async () => {
    await seed(emu, as(north));
    await seed(emu, as(south));
    await call(emu, "GET", "/courses", undefined, { key: "svc_test_unknown_key_000000000000" });
    const state = emu.state();
    for (const kind of ["courses", "classes", "assessments"] as const) {
      expect(state[kind].map((r) => r.org)).toEqual(["north", "south"]);
    }
    expect(emu.requests.map((r) => r.org)).toEqual(["north", "north", "north", "south", "south", "south", undefined]);

    const control = async (path: string) => {
      const text = await (await fetch(`${emu.url}/__emulator${path}`)).text();
      assertNoKey(text, `GET /__emulator${path}`);
      for (const key of [south.testKey, south.liveKey]) expect(text).not.toContain(key);
      return JSON.parse(text);
    };
    expect((await control("/state")).courses.map((c: { org: string }) => c.org)).toEqual(["north", "south"]);
    expect((await control("/requests?limit=2")).map((r: { org?: string }) => r.org ?? null)).toEqual(["south", null]);
    expect((await control("")).organizations).toEqual([
      { id: "north", name: "North High", examHost: north.examHost },
      { id: "south", name: "South College", examHost: south.examHost },
    ]);
  });
});

describe("rate windows per organization", () => {
  it("one organization at its limit gets 429 while the other still answers 200", async () => {
    const limited = await startEmulator({ organizations: [{ id: "north", name: "North High" }, { id: "south", name: "South College" }], rateLimits: { dev: 3 } });
    try {
      const [n, s] = [limited.organization("north"), limited.organization("south")];
      for (let i = 0; i < 3; i++) expect((await call(limited, "GET", "/courses", undefined, { key: n.testKey })).status).toBe(200);
      const refused = await call(limited, "GET", "/courses", undefined, { key: n.testKey });
      expect(refused.status).toBe(429);
      const other = await call(limited, "GET", "/courses", undefined, { key: s.testKey });
      expect(other.status).toBe(200);
      expect(other.headers.get("x-ratelimit-remaining")).toBe("2");
    } finally {
      await limited.close();
    }
  });
});

describe("faults per organization", () => {
  it("a fault with organization applies to that organization's requests only; an unknown id is refused", async () => {
    emu.fault({ type: "status", status: 503, count: 5, organization: "south" });
    expect((await call(emu, "GET", "/courses", undefined, as(north))).status).toBe(200);
    expect((await call(emu, "GET", "/courses", undefined, as(south))).status).toBe(503);
    expect(() => emu.fault({ type: "status", status: 503, organization: "east" })).toThrow(/organization "east" is not one of/);
  });
});

describe("exam hosts", () => {
  it("examUrl uses the exam's own organization's exam host", async () => {
    const n = await seed(emu, as(north));
    const s = await seed(emu, as(south));
    expect(emu.examUrl(n.examId).startsWith(`${north.examHost}/exam/`)).toBe(true);
    expect(emu.examUrl(s.examId, "t").startsWith(`${south.examHost}/exam/${s.examId}?`)).toBe(true);
  });

  it("opens a ticket at its own organization's exam host; at the other's: 403 'belongs to another school', nothing used", async () => {
    const n = await seed(emu, as(north));
    const token = await tokenFor(north, n.classId);
    const path = `/exam/${n.examId}?__clerk_ticket=${encodeURIComponent(token)}`;

    const wrongHost = await open(`${south.examHost}${path}`);
    expect(wrongHost.status).toBe(403);
    expect(wrongHost.html).toContain("This exam belongs to another school");
    expect(wrongHost.html).toContain("South College");
    expect(wrongHost.headers.get("set-cookie")).toBeNull();
    expect(emu.state().tickets.map((t) => t.used)).toEqual([false]);

    const ownHost = await open(`${north.examHost}${path}`);
    expect(ownHost.status).toBe(200);
    expect(ownHost.html).toContain("Signed in as Ada Lovelace1");
    expect(emu.state().tickets.map((t) => t.used)).toEqual([true]);
  });

  it("the platform host (main origin) opens every organization's exams", async () => {
    const s = await seed(emu, as(south));
    const token = await tokenFor(south, s.classId);
    const page = await open(`${emu.url}/exam/${s.examId}?__clerk_ticket=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Cell biology oral");
  });

  it("a session counts only on the exam host that started it", async () => {
    const n = await seed(emu, as(north));
    const s = await seed(emu, as(south));
    // The same person (same e-mail) is a student of both schools.
    await tokenFor(south, s.classId);
    const first = await open(emu.examUrl(n.examId, await tokenFor(north, n.classId)));
    const cookie = first.headers.get("set-cookie")?.split(";")[0] ?? "";
    expect(cookie).toMatch(/^__session_north=/);
    expect((await open(emu.examUrl(n.examId), cookie)).status).toBe(200);

    const sessionId = cookie.split("=")[1];
    expect((await open(emu.examUrl(s.examId), cookie)).status).toBe(401);
    expect((await open(emu.examUrl(s.examId), `__session_south=${sessionId}`)).status).toBe(401);
    expect((await open(`${emu.url}/exam/${s.examId}`, `__session=${sessionId}`)).status).toBe(401);
  });

  it("serves its school's home and sign-in pages, never the API; another school's exam is refused at sign-in", async () => {
    const n = await seed(emu, as(north));
    const home = await open(`${south.examHost}/`);
    expect(home.status).toBe(200);
    expect(home.html).toContain("South College");
    expect((await fetch(`${south.examHost}/api/v1/dev/courses`, { headers: { Authorization: `Bearer ${south.testKey}` } })).status).toBe(404);
    expect((await fetch(`${south.examHost}/__emulator/state`)).status).toBe(404);

    const signIn = await fetch(`${south.examHost}/sign-in`, {
      method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "eve@school.test", firstName: "Eve", lastName: "Intruder", redirect_url: `/exam/${n.examId}` }).toString(),
    });
    expect(signIn.status).toBe(403);
    expect(await signIn.text()).toContain("This exam belongs to another school");
    expect(emu.state().students).toEqual([]);
  });

  it("close() stops the exam hosts too", async () => {
    const other = await startEmulator({ organizations: [{ id: "east", name: "East Academy" }] });
    const host = other.organization("east").examHost;
    expect((await fetch(`${host}/`)).status).toBe(200);
    await other.close();
    await expect(fetch(`${host}/`)).rejects.toThrow();
  });
});

describe("without organizations", () => {
  it("has one default organization with testKey/liveKey, its exam pages on the main origin", async () => {
    const plain = await startEmulator({ testKeys: [TEST_KEY], liveKeys: [LIVE_KEY] });
    try {
      expect(plain.organizations).toHaveLength(1);
      const only = plain.organizations[0]!;
      expect([only.id, only.testKey, only.liveKey, only.examHost]).toEqual(["default", TEST_KEY, LIVE_KEY, plain.url]);
      expect(plain.examHost).toBe(plain.url);
    } finally {
      await plain.close();
    }
  });
});

describe("the organizations option", () => {
  it("lists every problem at once in one ConfigurationError, keys redacted", async () => {
    const southKey = `svc_test_${"s".repeat(30)}`;
    const attempt = startEmulator({
      testKeys: [TEST_KEY],
      organizations: [
        { id: "north", name: "North High", testKeys: [southKey] },
        { id: "north", name: " " },
        { id: "bad id!", name: "Bad", testKeys: ["svc_live_wrong_family_000000000"] },
        { id: "x".repeat(65), name: "Long", liveKeys: [] },
        { id: "south", name: "South", testKeys: [southKey], examPort: 70_000 },
        null as never,
      ],
    });
    const error = await attempt.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems.map((p) => p.option);
    expect([...problems].sort()).toEqual([
      "organizations[1].id", "organizations[1].name", "organizations[2].id", "organizations[2].testKeys[0]",
      "organizations[3].id", "organizations[4].examPort", "organizations[4].testKeys[0]", "organizations[5]", "testKeys",
    ].sort());
    const message = (error as Error).message;
    expect(message).not.toContain(southKey);
    expect(message).not.toContain(TEST_KEY);
  });

  it("fails to start with the port named when an exam host's port is taken", async () => {
    const taken = Number(new URL(emu.url).port);
    await expect(startEmulator({ organizations: [{ id: "north", name: "North High", examPort: taken }] }))
      .rejects.toThrow(`could not listen on 127.0.0.1:${taken} (EADDRINUSE)`);
  });

  it("refuses an empty list", async () => {
    await expect(startEmulator({ organizations: [] })).rejects.toThrow(/organizations: must be a non-empty array/);
  });
});
