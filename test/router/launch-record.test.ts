/**
 * The launch record through the router: each outcome of an identified student recorded
 * (never a token), listed per exam newest first with cursor, filters and CSV; the writer
 * off the request path (an outage loses at most its buffer, logged once); the retention
 * purge running by itself on an injected clock.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import type { LaunchRecord, OralStore } from "../../src/store/types.js";
import { LaunchRecorder } from "../../src/router/records/recorder.js";
import type { Emulator } from "../../src/emulator/index.js";
import { captureLogger } from "../support/canary.js";
import { startTestEmulator } from "../support/emulator.js";
import { startStack, type Stack } from "../support/stack.js";
import { rosterOf } from "../support/users.js";

let emulator: Emulator;
let stack: Stack;
let examId: string;
const WAITING_MS = 4_000;

beforeAll(async () => {
  emulator = await startTestEmulator({ classCapacity: 6, rateLimits: { dev: 100_000 } });
  stack = await startStack({
    useEmulator: emulator,
    // A launch answers 303 unless it waited WAITING_MS: far above any launch on a loaded
    // machine (a 300 ms threshold turned 303s into 202s there); only the hanging call below
    // reaches it, and the client's time limit is longer still, so that call waits, not fails.
    client: { timeoutMs: WAITING_MS + 2_000, maxRetries: 0, rateLimitPerMinute: 100_000 },
    router: {
      waitingPageAfterMs: WAITING_MS,
      launchLimit: { burst: 2, refillMs: 600_000 },
      canLaunch: (req) => (req.user as { username?: string } | undefined)?.username !== "bob",
      launchRecord: { flushMs: 50 },
    },
  });
  ({ examId } = await stack.seedExam());
});

afterAll(async () => {
  await stack?.close();
  await emulator?.close();
});

interface Shown { at: string; outcome: string; status: number; servedBy: string; via: string; student: { orgInternalId: string; email: string } }

async function launches(query = "", accept = "application/json") {
  const ines = await stack.login("ines");
  return ines.get(`/oral/oral-assessments/${examId}/launches${query}`).set("Accept", accept);
}

describe("the launch record", () => {
  /** The first launch's sign-in ticket: never shown in the record. */
  let ticket: string;
  // Every launch the tests below read, made once before them: each test only reads, so none depends on another's order.
  beforeAll(async () => {
    const ada = await stack.login("ada");
    const first = await ada.get(`/oral/launch/${examId}`).redirects(0).expect(303);
    ticket = new URL(first.headers.location as string).searchParams.get("__clerk_ticket")!;
    await ada.get(`/oral/launch/${examId}`).redirects(0).expect(303);
    await ada.get(`/oral/launch/${examId}`).redirects(0).expect(429); // past the burst of 2
    await (await stack.login("bob")).get(`/oral/launch/${examId}`).redirects(0).expect(403);
    emulator.fault({ type: "status", status: 500, count: 1 });
    await (await stack.login("s1")).get(`/oral/launch/${examId}`).redirects(0).expect(502);
    emulator.fault({ type: "hang", count: 1 });
    await (await stack.login("s2")).get(`/oral/launch/${examId}`).redirects(0).expect(202);
    emulator.clearFaults();
    // A double click: one call, the second request joins it (the platform answers in 1 s, so the two overlap however loaded the machine).
    const s3 = await stack.login("s3");
    emulator.setLatency({ fixedMs: 1_000 });
    const clicks = await Promise.all([s3.get(`/oral/launch/${examId}`).redirects(0), s3.get(`/oral/launch/${examId}`).redirects(0)]);
    emulator.setLatency({ fixedMs: 0 });
    expect(clicks.map((c) => c.status)).toEqual([303, 303]);
    // Signed out: nobody to record.
    await stack.anonymous().get(`/oral/launch/${examId}`).redirects(0).expect(401);
    // A prepared token's launch, last.
    const ines = await stack.login("ines");
    await ines.post(`/oral/oral-assessments/${examId}/prepare`).send({ startAt: new Date(Date.now() + 60_000).toISOString(), roster: [rosterOf("s4")] }).expect(202);
    await vi.waitFor(async () => expect((await ines.get(`/oral/oral-assessments/${examId}/prepare`)).body.data.ready).toBe(1), { timeout: 10_000, interval: 100 });
    await (await stack.login("s4")).get(`/oral/launch/${examId}`).redirects(0).expect(303);
  }, 60_000);

  it("records each outcome of an identified student, newest first, with how it was served and never a token", async () => {
    const res = await launches();
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const data = res.body.data as Shown[];
    const row = (id: string) => data.filter((r) => r.student.orgInternalId === id).map((r) => `${r.outcome}/${r.status}/${r.servedBy}`);
    expect(row("u-ada")).toEqual(["launch_limited/429/none", "redirected/303/on_demand", "redirected/303/on_demand"]);
    expect(row("u-bob")).toEqual(["forbidden/403/none"]);
    expect(row("u-s1")).toEqual(["platform_failed/502/none"]);
    expect(row("u-s2")).toEqual(["waiting/202/none"]);
    expect(row("u-s3").sort()).toEqual(["redirected/303/coalesced", "redirected/303/on_demand"]);
    expect(data).toHaveLength(9);
    expect(data[0]).toMatchObject({ via: "link", student: { orgInternalId: "u-s4", email: "s4@school.test" } });
    expect(data[1]).toMatchObject({ via: "link", student: { orgInternalId: "u-s3", email: "s3@school.test" } });
    expect([...data].sort((a, b) => b.at.localeCompare(a.at)).map((r) => r.at)).toEqual(data.map((r) => r.at));
    expect(res.body.meta).toEqual({ nextCursor: null });
    expect(JSON.stringify(res.body)).not.toContain(ticket);
    // The student's e-mail goes to the record, not to the log.
    expect(JSON.stringify(stack.logger.lines)).not.toContain("s3@school.test");
  });

  it("records a prepared token's launch as served by prepared", async () => {
    const res = await launches("?student=u-s4");
    expect(res.body.data.map((r: Shown) => `${r.outcome}/${r.servedBy}`)).toEqual(["redirected/prepared"]);
    // The plan's log events carry prepare's name (they were prewarm_* before; docs/ops.md).
    const events = stack.logger.lines.map((l) => String(l.obj.event));
    expect(events).toContain("prepare_planned");
    expect(events.filter((e) => e.startsWith("prewarm_"))).toEqual([]);
  });

  it("pages by cursor and filters by student and outcome; rejects a bad cursor naming it", async () => {
    const all = (await launches("?limit=1000")).body.data as Shown[];
    const seen: Shown[] = [];
    let cursor: string | null = null;
    do {
      const res = await launches(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.meta.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect((await launches("?student=ada@school.test")).body.data).toHaveLength(3);
    expect((await launches("?student=u-ada&outcome=redirected")).body.data).toHaveLength(2);
    expect((await launches("?outcome=forbidden")).body.data.map((r: Shown) => r.student.orgInternalId)).toEqual(["u-bob"]);
    const bad = await launches("?cursor=nope&limit=5000");
    expect(bad.status).toBe(400);
    expect(bad.headers["content-type"]).toMatch(/problem\+json/);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["cursor", "limit"]);
    // The other kind's list for the same id is its own (empty).
    const ines = await stack.login("ines");
    expect((await ines.get(`/oral/roleplays/${examId}/launches`).expect(200)).body.data).toEqual([]);
  });

  it("answers CSV with one header row when asked, every matching record, filters applied", async () => {
    const res = await launches("?limit=2", "text/csv");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/csv/);
    const lines = res.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("at,kind,examId,outcome,status,servedBy,via,orgInternalId,email,instance");
    expect(lines.filter((l) => l.startsWith("at,"))).toHaveLength(1);
    // Every record, not one page: limit only sizes the JSON pages.
    expect(lines).toHaveLength(1 + (await launches("?limit=1000")).body.data.length);
    const bob = (await launches("?student=u-bob", "text/csv")).text.trimEnd().split("\r\n");
    expect(bob).toHaveLength(2);
    expect(bob[1]).toMatch(new RegExp(`^\\S+Z,oral,${examId},forbidden,403,none,link,u-bob,bob@school.test,$`));
  });

  it("the live view counts each student once by their latest outcome, with pre-warming and the budget", async () => {
    const ines = await stack.login("ines");
    const res = await ines.get(`/oral/oral-assessments/${examId}/live`).expect(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    // ada: 429 last (refused); bob: forbidden; s1: platform failure; s2: waiting; s3, s4: launched.
    expect(res.body.data).toMatchObject({ launched: 2, waiting: 1, refused: 2, failed: 1, prepared: { ready: 0, planned: 1 } });
    // The platform's errors on the key: s1's 500 and s2's call that hung until the client's
    // time limit (counted once it timed out); no 429 (ada's 429 was the router's fair share).
    expect(res.body.data.budget.platform429).toBe(0);
    await expect.poll(async () => (await ines.get(`/oral/oral-assessments/${examId}/live`)).body.data.budget.platformErrors, { timeout: 3 * WAITING_MS }).toBe(2);
    expect(res.body.data.budget.limit).toBe(100_000);
    expect(res.body.data.budget.used).toBeGreaterThanOrEqual(6);
  });

  it("the live view as Server-Sent Events: a snapshot at once, the next after another student launches", async () => {
    // An exam of its own: its counts do not depend on which tests ran before.
    const { examId: own } = await stack.seedExam();
    const { url } = stack.app;
    const cookie = (await (await stack.login("ines")).get("/oral/openapi.json")).request.cookies;
    const controller = new AbortController();
    const res = await fetch(`${url}/oral/oral-assessments/${own}/live`, { headers: { accept: "text/event-stream", cookie }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = "";
    const nextSnapshot = async () => {
      for (;;) {
        const end = text.indexOf("\n\n");
        if (end >= 0) {
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          expect(event.split("\n")[0]).toBe("event: snapshot");
          return JSON.parse(event.split("\n")[1]!.slice("data: ".length));
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        text += new TextDecoder().decode(value);
      }
    };
    expect(await nextSnapshot()).toMatchObject({ launched: 0, waiting: 0 });
    await (await stack.login("s5")).get(`/oral/launch/${own}`).redirects(0).expect(303);
    expect(await nextSnapshot()).toMatchObject({ launched: 1, waiting: 0 });
    controller.abort();
  });

  it("is for instructors only", async () => {
    expect((await stack.anonymous().get(`/oral/oral-assessments/${examId}/launches`)).status).toBe(401);
    expect((await (await stack.login("ada")).get(`/oral/oral-assessments/${examId}/launches`)).status).toBe(403);
  });
});

describe("the launch recorder", () => {
  const settings = { retentionMs: 1_000, purgeEveryMs: 1_000, flushMs: 20, batchSize: 2, bufferSize: 4 };
  const launch = (i: number, at = new Date().toISOString()): LaunchRecord => ({
    at, kind: "oral", examId: "e1", outcome: "redirected", status: 303, servedBy: "on_demand", via: "link",
    student: { orgInternalId: `s${i}`, email: `s${i}@x.test` },
  });
  const listed = async (store: OralStore) => (await store.listLaunches("north", { kind: "oral", examId: "e1", limit: 100 })).records.map((r) => r.student.orgInternalId);

  it("keeps records through an outage as far as the buffer holds, retries them, and logs the outage once and its end once", async () => {
    const real = memoryStore();
    let down = true;
    // The real store, with its writes refused while `down`: an outage, nothing else changed.
    const store: OralStore = { ...real, addLaunches: (org, records) => (down ? Promise.reject(new Error("connection refused")) : real.addLaunches(org, records)) };
    const logger = captureLogger();
    const recorder = new LaunchRecorder(store, { ...settings, retentionMs: 86_400_000, purgeEveryMs: 3_600_000 }, logger);
    for (let i = 0; i < 10; i++) recorder.record("north", launch(i));
    await recorder.flush();
    await vi.waitFor(() => expect(recorder.pending).toBe(4), { timeout: 5_000 });
    for (let i = 10; i < 13; i++) recorder.record("north", launch(i)); // the buffer is full: lost
    await new Promise((r) => setTimeout(r, 100)); // several retries fail meanwhile
    down = false;
    await vi.waitFor(async () => expect(await listed(real)).toHaveLength(4), { timeout: 5_000 });
    const warned = logger.lines.filter((e) => e.obj.event === "launch_records_lost");
    expect(warned).toHaveLength(1);
    const restored = logger.lines.filter((e) => e.obj.event === "launch_records_restored");
    expect(restored).toHaveLength(1);
    expect(restored[0]!.obj.lost).toBe(9); // 13 recorded, 4 kept
    await recorder.close();
  });

  it("purges records past the retention by itself, on its clock", async () => {
    const store = memoryStore();
    let now = Date.parse("2026-06-01T00:00:00Z");
    await store.addLaunches("north", [launch(1, "2026-05-31T23:59:58.000Z"), launch(2, "2026-06-01T00:00:00.000Z")]);
    await store.addLaunches("south", [launch(3, "2026-05-01T00:00:00.000Z")]);
    const recorder = new LaunchRecorder(store, settings, captureLogger(), { now: () => now });
    now += 1_500; // s1 is 3.5 s old, s2 1.5 s, the retention is 1 s
    await vi.waitFor(async () => expect(await listed(store)).toEqual([]), { timeout: 5_000, interval: 100 });
    expect((await store.listLaunches("south", { kind: "oral", examId: "e1", limit: 10 })).records).toEqual([]);
    now = Date.parse("2026-06-01T00:00:00Z");
    await store.addLaunches("north", [launch(4, "2026-06-01T00:00:00.000Z")]);
    expect(await recorder.purge()).toBe(0); // within the retention: kept
    expect(await listed(store)).toEqual(["s4"]);
    await recorder.close();
  });
});
