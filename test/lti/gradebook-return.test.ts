/**
 * `GET <mount>/lti/return` over real HTTP (the session app as the tool, the LMS emulator):
 * one `Submitted` per return mark however often it is replayed, a limit per client
 * address (429 with Retry-After past it, nothing queued), and nothing changed by a
 * request the browser marks as a cross-site subrequest, a prefetch, or a HEAD.
 */
import http from "node:http";
import request from "supertest";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { DASHBOARD_EXAMS_LINKABLE, followToExam, launchFromCourse, placeExam, TOOL_KEY_PEM } from "../support/lti.js";
import { memoryStore } from "../../src/index.js";
import { startStack, type Stack } from "../support/stack.js";

const poll = { timeout: 20_000, interval: 50 };
const HANDED_IN = /handed in/;

describe("GET /lti/return", () => {
  let lms: LmsEmulator;
  let stack: Stack;
  beforeAll(async () => {
    lms = await createLmsEmulator();
    stack = await startStack({
      router: { lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, emailStandIn: { domain: "lms.invalid" },
        gradebook: { pollMs: 50, firstRetryMs: 100, maxRetryMs: 400, returnLimit: { burst: 40, refillMs: 600_000 } } } },
    });
    lms.registerTool(`${stack.app.url}/oral`);
  });
  afterAll(async () => {
    await stack?.close();
    await lms?.close();
  });

  it("queues one Submitted per mark: replays, cross-site subrequests, prefetches and HEADs add nothing; past the limit a 429", async () => {
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const launched = await launchFromCourse({ lms }, "student-1", linkId);
    const { opened } = await followToExam(launched);
    expect(opened.status, opened.text).toBe(303);
    const mark = (opened.headers["set-cookie"] as unknown as string[]).find((c) => c.startsWith("eoa_lti_return="))!.split(";")[0]!;
    const sub = String(decodeJwt(launched.idToken).sub);
    const mine = () => lms.scores.filter((s) => s.userId === sub);
    await vi.waitFor(() => expect(mine()).toHaveLength(1), poll);
    const back = () => request(stack.app.url).get("/oral/lti/return").set("Cookie", mark);

    // An image, a prefetch, a HEAD from another site: the page, nothing queued, the mark left in place.
    for (const [name, sent] of [
      ["image", back().set({ "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image" })],
      ["frame", back().set({ "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe" })],
      ["prefetch", back().set({ "Sec-Purpose": "prefetch", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" })],
      ["head", request(stack.app.url).head("/oral/lti/return").set("Cookie", mark)],
    ] as const) {
      const answer = await sent;
      expect(answer.status, name).toBe(200);
      expect(answer.text ?? "", name).not.toMatch(HANDED_IN);
      expect(String(answer.headers["set-cookie"] ?? ""), name).not.toContain("eoa_lti_return=;");
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(mine()).toHaveLength(1);

    // The exam site's redirect back: a cross-site top-level navigation carries the mark by design.
    const first = await back().set({ "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" });
    expect(first.status).toBe(200);
    expect(first.text).toMatch(HANDED_IN);
    // 30 replays of the same mark (a learner's reloads, or a script): still the one Submitted.
    const replays = await Promise.all(Array.from({ length: 30 }, () => back()));
    expect(replays.map((r) => r.status)).toEqual(Array(30).fill(200));
    // Past the per-address limit (a burst of 40 here): 429 with Retry-After, nothing queued.
    const past = await Promise.all(Array.from({ length: 15 }, () => back()));
    const limited = past.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(6);
    expect(Number(limited[0]!.headers["retry-after"])).toBeGreaterThan(0);
    await vi.waitFor(() => expect(mine()).toHaveLength(2), poll);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mine().map((s) => s.activityProgress)).toEqual(["Started", "Submitted"]);
    const ines = await stack.login("ines");
    const record = await ines.get(`/oral/oral-assessments/${examId}/launches`);
    expect(record.body.meta.gradebook[0].scores.map((s: { activityProgress: string }) => s.activityProgress)).toEqual(["Submitted", "Started"]);
  });
});

describe("GET /lti/return replayed 2,000 times, every replay let in", () => {
  let lms: LmsEmulator;
  let stack: Stack;
  // The store's gradebook reads and writes, counted: a replay is known before any of them.
  const calls = { addLtiScores: 0, listLtiScores: 0 };
  const store = memoryStore();
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if ((name === "addLtiScores" || name === "listLtiScores") && typeof value === "function") {
        return (...args: unknown[]) => {
          calls[name] += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value;
    },
  });
  beforeAll(async () => {
    lms = await createLmsEmulator();
    stack = await startStack({
      router: { store: counted, lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, emailStandIn: { domain: "lms.invalid" },
        gradebook: { pollMs: 50, returnLimit: { burst: 100_000, refillMs: 600_000 } } } },
    });
    lms.registerTool(`${stack.app.url}/oral`);
  });
  afterAll(async () => {
    await stack?.close();
    await lms?.close();
  });

  it("queues one Submitted and makes one LMS POST: each replay answers the page and queues nothing", async () => {
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    const launched = await launchFromCourse({ lms }, "student-1", linkId);
    const { opened } = await followToExam(launched);
    const mark = (opened.headers["set-cookie"] as unknown as string[]).find((c) => c.startsWith("eoa_lti_return="))!.split(";")[0]!;
    const sub = String(decodeJwt(launched.idToken).sub);
    const mine = () => lms.scores.filter((s) => s.userId === sub);
    await vi.waitFor(() => expect(mine()).toHaveLength(1), poll);
    const first = await request(stack.app.url).get("/oral/lti/return").set("Cookie", mark);
    expect(first.text).toMatch(HANDED_IN);
    await vi.waitFor(() => expect(mine()).toHaveLength(2), poll);
    const before = { ...calls };

    // 2,000 replays with the one mark, 16 in flight on keep-alive sockets, as a script would send them.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const statuses: number[] = [];
    const bodies = new Set<string>();
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < 2_000) {
        next += 1;
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          http.get(`${stack.app.url}/oral/lti/return`, { agent, headers: { cookie: mark } }, (res) => {
            let body = "";
            res.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", () => resolve({ status: res.statusCode!, body }));
          }).on("error", reject);
        });
        statuses.push(answer.status);
        bodies.add(HANDED_IN.test(answer.body) ? "handed in" : answer.body.slice(0, 200));
      }
    }));
    agent.destroy();
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect([...bodies]).toEqual(["handed in"]);
    // No store read or write for any replay: this router remembers the marks it took a return for.
    expect(calls).toEqual(before);
    const ines = await stack.login("ines");
    const record = await ines.get(`/oral/oral-assessments/${examId}/launches`);
    expect(record.body.meta.gradebook[0].scores.map((s: { activityProgress: string }) => s.activityProgress)).toEqual(["Submitted", "Started"]);
    // Another instance on the same store (it never saw the mark): the replay is checked and read, and queues nothing
    // (the entry's id comes from the mark). Last: closing that router closes the shared store.
    const second = await startStack({ useEmulator: stack.emulator, router: { store: counted, lti: {
      keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, emailStandIn: { domain: "lms.invalid" },
      gradebook: { pollMs: 50, returnLimit: { burst: 100_000, refillMs: 600_000 } } } } });
    try {
      const elsewhere = await request(second.app.url).get("/oral/lti/return").set("Cookie", mark);
      expect(elsewhere.text).toMatch(HANDED_IN);
      await vi.waitFor(() => expect(calls.addLtiScores).toBe(before.addLtiScores + 1), poll);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await second.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mine().map((s) => s.activityProgress)).toEqual(["Started", "Submitted"]);
  });
});
