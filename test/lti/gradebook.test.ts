/**
 * The LMS gradebook (LTI AGS) over real HTTP: the platform emulator, the LMS emulator
 * (line items, scores, its token endpoint) and the session app as the tool. An exam
 * placed by deep linking gets its line item from the LMS (Brightspace makes none: the
 * tool creates it); a learner's launch that reaches the exam posts Started, the return
 * posts Submitted; the app's grades go through `POST /oral-assessments/:examId/scores`
 * (400s naming the field with nothing queued, 403 for a learner); the outbox keeps a
 * score through an LMS outage and a restart, and another process delivers it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsEmulator, type LmsPreset } from "../../src/emulator/index.js";
import { sqliteStore } from "../../src/index.js";
import { followToExam, launchFromCourse, placeExam } from "../support/lti.js";
import type { Stack } from "../support/stack.js";
import { reachExam, toolFor } from "./support/gradebook-tool.js";

const poll = { timeout: 20_000, interval: 50 };

describe("the LMS gradebook (AGS)", () => {
  let lms: LmsEmulator;
  let stack: Stack;
  beforeAll(async () => {
    lms = await createLmsEmulator();
    stack = await toolFor(lms);
  });
  afterAll(async () => {
    await stack?.close();
    await lms?.close();
  });

  it("deep linking makes the exam's line item; reaching the exam posts Started, the return Submitted", async () => {
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const item = lms.lineItems.find((i) => i.resourceId === examId)!;
    expect(item).toMatchObject({ createdBy: "lms", resourceLinkId: linkId, scoreMaximum: 100, tag: "oral-assessment" });
    const before = Date.now();
    const { sub, mark, markAttributes } = await reachExam(lms, linkId);
    expect(markAttributes).toMatch(/HttpOnly/i);
    expect(markAttributes).toMatch(/SameSite=Lax/i);
    await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(1), poll);
    const started = lms.scores.find((s) => s.userId === sub)!;
    expect(started).toMatchObject({ activityProgress: "Started", gradingProgress: "NotReady", lineItemId: expect.stringContaining(`/lineitems/${item.id}`) });
    expect(Date.parse(started.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect(started.comment).toMatch(/Started/);
    expect(lms.lineItems.filter((i) => i.resourceId === examId)).toHaveLength(1);

    const back = await request(stack.app.url).get("/oral/lti/return").set("Cookie", mark!);
    expect(back.status).toBe(200);
    expect(back.text).toContain("submitted");
    await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(2), poll);
    const submitted = lms.scores.filter((s) => s.userId === sub)[1]!;
    expect(submitted).toMatchObject({ activityProgress: "Submitted", gradingProgress: "PendingManual" });
    expect(submitted.submission?.submittedAt).toBe(submitted.timestamp);
    expect(submitted.comment).toMatch(/not proof/);
    // Without a mark (or with a forged one) the return tells the LMS nothing.
    const forged = await request(stack.app.url).get("/oral/lti/return").set("Cookie", `${mark!.slice(0, -3)}xyz`);
    expect(forged.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(2);

    // The app's grade: submittedAt stays the return's, the comment the last one when none is given.
    const ines = await stack.login("ines");
    const graded = await ines.post(`/oral/oral-assessments/${examId}/scores`).send({ scores: [{ student: "sam@lms.example", scoreGiven: 17, scoreMaximum: 20 }] });
    expect(graded.status, graded.text).toBe(202);
    expect(graded.body.data).toEqual([{ student: "sam@lms.example", queued: 1 }]);
    await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(3), poll);
    const grade = lms.scores.filter((s) => s.userId === sub)[2]!;
    expect(grade).toMatchObject({ activityProgress: "Completed", gradingProgress: "FullyGraded", scoreGiven: 17, scoreMaximum: 20, comment: submitted.comment });
    expect(grade.submission?.submittedAt).toBe(submitted.timestamp);

    // The launch record shows what the gradebook was told, and when.
    const record = await ines.get(`/oral/oral-assessments/${examId}/launches`);
    expect(record.status).toBe(200);
    const told = record.body.meta.gradebook as { student: { email: string }; scores: { activityProgress: string; state: string; sentAt?: string }[] }[];
    expect(told).toHaveLength(1);
    expect(told[0]!.scores.map((s) => [s.activityProgress, s.state])).toEqual([["Completed", "sent"], ["Submitted", "sent"], ["Started", "sent"]]);
    expect(told[0]!.scores.every((s) => typeof s.sentAt === "string")).toBe(true);
  });

  it("the score API: 400 naming the field and nothing queued; 403 for a learner", async () => {
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const { sub } = await reachExam(lms, linkId, "student-2");
    await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(1), poll);
    const ines = await stack.login("ines");
    const path = `/oral/oral-assessments/${examId}/scores`;
    const cases: [unknown, string][] = [
      [{}, "studentId"],
      [{ studentId: "ada@lms.example", scoreGiven: 21, scoreMaximum: 20 }, "scoreGiven"],
      [{ studentId: "nobody@lms.example", scoreGiven: 5 }, "studentId"],
      [{ scores: [] }, "scores"],
      [{ scores: [{ studentId: "ada@lms.example", scoreGiven: 5 }, { studentId: "nobody@lms.example", scoreGiven: 5 }] }, "scores[1].studentId"],
      [{ scores: [{ student: "ada@lms.example", scoreGiven: 21, scoreMaximum: 20 }] }, "scores.0.scoreGiven"],
      [{ scores: [{ student: "ada@lms.example", gradingProgress: "Graded" }] }, "scores.0.gradingProgress"],
      [{ scores: [{ student: "ada@lms.example", scoreGiven: 5 }, { student: "nobody@lms.example", scoreGiven: 5 }] }, "scores[1].student"],
    ];
    for (const [body, field] of cases) {
      const answer = await ines.post(path).send(body as object);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.headers["content-type"]).toMatch(/application\/problem\+json/);
      expect(answer.body.errors.map((e: { path: string }) => e.path), JSON.stringify(body)).toContain(field);
    }
    const ada = await stack.login("ada");
    expect((await ada.post(path).send({ scores: [{ student: "ada@lms.example", scoreGiven: 5 }] })).status).toBe(403);
    await new Promise((r) => setTimeout(r, 300));
    expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(1);
    const record = await ines.get(`/oral/oral-assessments/${examId}/launches`);
    expect(record.body.meta.gradebook[0].scores).toHaveLength(1);
  });

  it("router.lti.postScore queues like the route, and refuses an unknown student with a TypeError", async () => {
    await expect(stack.app.router.lti.postScore({ examId: "nope", scores: [{ student: "x@y.z", scoreGiven: 1 }] })).rejects.toThrow(/scores\[0\]\.student/);
    await expect(stack.app.router.lti.postScore({ examId: "nope", scores: [{ student: "x@y.z", scoreGiven: -1 }] })).rejects.toThrow(TypeError);
  });
});

describe("a launch the app refuses", () => {
  it("leaves no return mark and tells the LMS nothing", async () => {
    const lms = await createLmsEmulator();
    const stack = await toolFor(lms, { router: { canLaunch: () => false } });
    try {
      const { examId } = await stack.seedExam();
      const linkId = await placeExam({ lms }, examId);
      const { opened } = await followToExam(await launchFromCourse({ lms }, "student-1", linkId));
      expect(opened.status).toBe(403);
      const cookies = (opened.headers["set-cookie"] as unknown as string[] | undefined) ?? [];
      expect(cookies.filter((c) => c.startsWith("eoa_lti_return="))).toEqual([]);
      await new Promise((r) => setTimeout(r, 300));
      expect(lms.scores).toHaveLength(0);
    } finally {
      await stack.close();
      await lms.close();
    }
  });
});

describe("the return mark's max age", () => {
  it("a mark older than returnMarkMaxAgeMs (12 h) tells the LMS nothing; the same mark in time is a return", async () => {
    const lms = await createLmsEmulator();
    const stack = await toolFor(lms);
    try {
      const { examId } = await stack.seedExam();
      const linkId = await placeExam({ lms }, examId);
      const { sub, mark } = await reachExam(lms, linkId);
      await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(1), poll);
      // The clock 12 h and 1 min on (only Date: servers and sockets run as ever).
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 12 * 3_600_000 + 60_000 });
      let late;
      try {
        late = await request(stack.app.url).get("/oral/lti/return").set("Cookie", mark!);
      } finally {
        vi.useRealTimers();
      }
      expect(late.status).toBe(200);
      expect(late.text).not.toContain("handed in");
      const back = await request(stack.app.url).get("/oral/lti/return").set("Cookie", mark!);
      expect(back.text).toContain("handed in");
      await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub && s.activityProgress === "Submitted")).toHaveLength(1), poll);
      await stack.app.router.lti.postScore({ examId, scores: [{ student: "sam@lms.example", scoreGiven: 1 }] });
      await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(3), poll);
      expect(lms.scores.filter((s) => s.userId === sub).map((s) => s.activityProgress)).toEqual(["Started", "Submitted", "Completed"]);
    } finally {
      await stack.close();
      await lms.close();
    }
  });
});

describe("Brightspace: no line item for a deep-linked 1.3 link", () => {
  it("the tool creates the exam's line item through lineitems, once, and posts there", async () => {
    const lms = await createLmsEmulator({ preset: "brightspace" as LmsPreset });
    const stack = await toolFor(lms);
    try {
      const { examId } = await stack.seedExam();
      const linkId = await placeExam({ lms }, examId);
      expect(lms.lineItems).toHaveLength(0);
      const first = await reachExam(lms, linkId, "student-1");
      const second = await reachExam(lms, linkId, "student-2");
      await vi.waitFor(() => expect(lms.scores).toHaveLength(2), poll);
      expect(lms.lineItems).toHaveLength(1);
      expect(lms.lineItems[0]).toMatchObject({ createdBy: "tool", resourceId: examId, tag: "oral-assessment", scoreMaximum: 100 });
      expect(new Set(lms.scores.map((s) => s.lineItemId))).toEqual(new Set([`${lms.url}/lineitems/${lms.lineItems[0]!.id}`]));
      expect(lms.scores.map((s) => s.userId).sort()).toEqual([first.sub, second.sub].sort());
    } finally {
      await stack.close();
      await lms.close();
    }
  });
});

describe("the score outbox", () => {
  const dir = mkdtempSync(join(tmpdir(), "eoa-gradebook-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps a score through an LMS outage (its Retry-After honoured) and a restart; the next process delivers it", async () => {
    const filename = join(dir, "outbox.sqlite");
    const lms = await createLmsEmulator();
    const first = await toolFor(lms, { router: { store: sqliteStore({ filename }) } });
    let second: Stack | undefined;
    try {
      const { examId } = await first.seedExam();
      const linkId = await placeExam({ lms }, examId);
      lms.setGradebookOutage(6_000);
      const { sub } = await reachExam(lms, linkId);
      const ines = await first.login("ines");
      // The LMS answers 503 with Retry-After (the outage's rest): the score waits that long (retries every 100 ms otherwise); the launch record says why.
      await vi.waitFor(async () => {
        const told = (await ines.get(`/oral/oral-assessments/${examId}/launches`)).body.meta.gradebook?.[0]?.scores?.[0];
        expect(told).toMatchObject({ activityProgress: "Started", state: "pending", attempts: 1 });
        expect(told.lastError).toMatch(/503/);
      }, poll);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(lms.gradebookCounts.outageAnswers).toBe(1);
      await first.app.close();
      lms.setGradebookOutage(0);
      expect(lms.scores).toHaveLength(0);

      second = await toolFor(lms, { useEmulator: first.emulator, router: { store: sqliteStore({ filename }) } });
      await second.app.router.ready();
      await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub)).toHaveLength(1), poll);
      expect(lms.scores[0]).toMatchObject({ activityProgress: "Started", gradingProgress: "NotReady" });
    } finally {
      await second?.close();
      await first.emulator.close();
      await lms.close();
    }
  });
});
