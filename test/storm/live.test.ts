/**
 * The live view under a storm: 80 students press Launch at once on a key paced at 10 calls
 * a second, so most see the waiting page, and the platform answers a 429 for four calls.
 * While it runs and after, the JSON snapshot agrees with what the emulator saw (sign-in
 * calls answered, 429s waited out or not, calls in the key's window) and with the launch
 * record; the SSE stream sends updated snapshots meanwhile. And `prepared.expiring`: ready tokens within
 * 60 s of the end of their usable life.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../../src/emulator/index.js";
import { buildOpenApiDocument } from "../../src/index.js";
import { browse, readJson, rosterOf, startStormStack, until, type StormStack, type Walk } from "./support.js";

interface Live {
  launched: number; waiting: number; refused: number; failed: number;
  prepared: { ready: number; planned: number; expiring: number; expired: number };
  budget: { used: number; limit: number; windowMs: number; platform429: number; platformErrors: number };
}

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function live(s: StormStack, examId: string): Promise<Live> {
  const res = await s.as("ines", `/oral/oral-assessments/${examId}/live`);
  expect(res.status).toBe(200);
  return (await readJson<{ data: Live }>(res)).data;
}

/** Reads `event: snapshot` events from the live stream into `into` until aborted. */
async function follow(s: StormStack, examId: string, into: Live[], signal: AbortSignal): Promise<void> {
  const res = await fetch(new URL(`/oral/oral-assessments/${examId}/live`, s.app.url), { headers: { accept: "text/event-stream", "x-test-user": "ines" }, signal });
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
        const [event, data] = text.slice(0, end).split("\n");
        text = text.slice(end + 2);
        if (event === "event: snapshot") into.push(JSON.parse(data!.slice("data: ".length)) as Live);
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

const signIns = (requests: readonly ReceivedRequest[]) => requests.filter((r) => r.path === "/students/sign-in-token");
/** Sign-in calls the emulator answered with `status` ("2xx": a token). */
const answered = (requests: readonly ReceivedRequest[], status: number | "2xx") =>
  signIns(requests).filter((r) => (status === "2xx" ? r.status >= 200 && r.status < 300 : r.status === status)).length;

describe("the live view under a launch storm", () => {
  it("agrees with the emulator and the launch record while 80 students launch at once, and streams the progress", { timeout: 90_000 }, async () => {
    const windowMs = 1_000;
    stack = await startStormStack({
      client: { rateLimitPerMinute: 10, rateWindowMs: windowMs, maxRetries: 0 },
      router: { waitingPageAfterMs: 200, launchRecord: { flushMs: 50 } },
    });
    const s = stack;
    const { examId } = await s.seedDirect();
    const students = Array.from({ length: 80 }, (_, i) => `s${i}`);
    // The platform answers 429 once for four students' calls (another client on the key,
    // say), with a Retry-After of 1 s: a launch waits that out and asks again.
    const limited = ["s5", "s25", "s45", "s65"];
    for (const name of limited) s.emulator.fault({ type: "status", status: 429, retryAfter: 1, pathPrefix: "/students/sign-in-token", bodyContains: `${name}@school.test` });

    expect(await live(s, examId)).toMatchObject({ launched: 0, waiting: 0, refused: 0, failed: 0, budget: { used: 0, limit: 10, platform429: 0 } });

    const streamed: Live[] = [];
    const stop = new AbortController();
    const streaming = follow(s, examId, streamed, stop.signal);

    let done = false;
    const storm = Promise.all(students.map((name) => browse(s, name, `/oral/launch/${examId}`))).finally(() => {
      done = true;
    });
    // Polled while the storm runs: every snapshot is bounded by what the emulator had seen just after it.
    const during: Live[] = [];
    while (!done) {
      const snapshot = await live(s, examId);
      const seen = s.emulator.requests;
      during.push(snapshot);
      expect(snapshot.launched).toBeLessThanOrEqual(answered(seen, "2xx"));
      expect(snapshot.launched + snapshot.waiting).toBeLessThanOrEqual(students.length);
      expect(snapshot).toMatchObject({ refused: 0, failed: 0, budget: { platformErrors: 0 } });
      // Every 429 the platform answered is counted (even one a launch waited out), none it did not.
      expect(snapshot.budget.platform429).toBeLessThanOrEqual(answered(seen, 429));
      expect(snapshot.budget.used).toBeLessThanOrEqual(snapshot.budget.limit);
      await new Promise((r) => setTimeout(r, 100));
    }
    const walks: Walk[] = await storm;

    // The students: every one reached their exam, most after a waiting page.
    expect(walks.map((w) => w.status)).toEqual(students.map(() => 303));
    expect(walks.filter((w) => w.waitingPages > 0).length).toBeGreaterThan(20);
    // Snapshots during the storm saw students waiting, and launches in progress.
    expect(Math.max(...during.map((d) => d.waiting))).toBeGreaterThan(0);
    expect(during.some((d) => d.launched > 0 && d.launched < 80)).toBe(true);

    // After: the emulator answered 80 tokens and 4 429s (each asked again), the live view
    // counts 80 launched, no launch failed (the 429s were waited out), and the 4 429s.
    const before = Date.now();
    const after = await live(s, examId);
    const afterAt = Date.now();
    const seen = s.emulator.requests;
    expect(signIns(seen)).toHaveLength(84);
    expect(answered(seen, "2xx")).toBe(80);
    expect(answered(seen, 429)).toBe(4);
    for (const name of limited) expect(signIns(seen).filter((r) => JSON.stringify(r.body).includes(`${name}@school.test`)).map((r) => r.status)).toEqual([429, 200]);
    expect(after).toMatchObject({ launched: 80, waiting: 0, refused: 0, failed: 0, budget: { limit: 10, platform429: 4, platformErrors: 0 } });
    // `used`: the calls answered in the last window. The emulator logs arrivals, the budget
    // answers: a call that arrived within the window of the read is counted; one counted
    // arrived at most the emulator's answer time (allow 300 ms) before it.
    const arrivedSince = (t: number) => seen.filter((r) => r.at > t).length;
    expect(after.budget.used).toBeGreaterThanOrEqual(arrivedSince(afterAt - windowMs));
    expect(after.budget.used).toBeLessThanOrEqual(arrivedSince(before - windowMs - 300));

    // And the launch record says the same, student by student (latest outcome first).
    const record = await readJson<{ data: { outcome: string; status: number; student: { orgInternalId: string } }[] }>(await s.as("ines", `/oral/oral-assessments/${examId}/launches?limit=1000`));
    const latest = new Map<string, string>();
    for (const r of record.data) if (!latest.has(r.student.orgInternalId)) latest.set(r.student.orgInternalId, `${r.outcome}/${r.status}`);
    expect(latest.size).toBe(80);
    expect([...latest.values()].filter((o) => o === "redirected/303")).toHaveLength(after.launched);
    const waitingRows = record.data.filter((r) => r.outcome === "waiting").length;
    expect(waitingRows).toBeGreaterThanOrEqual(walks.filter((w) => w.waitingPages > 0).length);

    // The stream: snapshots while the storm ran, launched never going back, then the final numbers.
    await until(() => streamed.at(-1)?.launched === 80);
    const launched = streamed.map((d) => d.launched);
    expect(launched).toEqual([...launched].sort((a, b) => a - b));
    expect(streamed.some((d) => d.launched > 0 && d.launched < 80)).toBe(true);
    expect(streamed.at(-1)).toMatchObject({ launched: 80, waiting: 0, failed: 0 });

    // A 429 a launch cannot wait out (Retry-After past its deadline) fails it: the live view
    // counts the failed launch and the fifth 429, as the emulator saw them, on the stream too.
    s.emulator.fault({ type: "status", status: 429, retryAfter: 600, pathPrefix: "/students/sign-in-token", bodyContains: "s80@school.test" });
    expect((await browse(s, "s80", `/oral/launch/${examId}`)).status).toBe(503);
    expect(answered(s.emulator.requests, 429)).toBe(5);
    expect(await live(s, examId)).toMatchObject({ launched: 80, failed: 1, budget: { platform429: 5, platformErrors: 0 } });
    await until(() => streamed.at(-1)?.failed === 1);
    expect(streamed.at(-1)).toMatchObject({ launched: 80, failed: 1, budget: { platform429: 5 } });
    stop.abort();
    await streaming;
  });

  it("counts ready tokens within 60 s of the end of their usable life as expiring", async () => {
    // Tokens of 100 s, handed out while 40 s are left: 60 s of usable life, so expiring at once.
    stack = await startStormStack({ router: { prepare: { tokenTtlMs: 100_000, minTokenLifeMs: 40_000, leadMs: 60_000 } } });
    const s = stack;
    const { examId } = await s.seedDirect();
    const roster = ["s1", "s2", "s3"].map(rosterOf);
    const prepared = await s.as("ines", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body: { startAt: new Date(Date.now() + 30_000).toISOString(), roster } });
    expect(prepared.status).toBe(202);
    await until(async () => (await live(s, examId)).prepared.ready === 3);
    expect((await live(s, examId)).prepared).toEqual({ ready: 3, planned: 3, expiring: 3, expired: 0 });
    const progress = (await readJson<{ data: { ready: number; expiring: number } }>(await s.as("ines", `/oral/oral-assessments/${examId}/prepare`))).data;
    expect(progress).toMatchObject({ ready: 3, expiring: 3 });
  });

  it("does not count tokens with more than 60 s of usable life left", async () => {
    // The default 10-minute tokens: 8 minutes of usable life.
    stack = await startStormStack();
    const s = stack;
    const { examId } = await s.seedDirect();
    const prepared = await s.as("ines", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body: { startAt: new Date(Date.now() + 60_000).toISOString(), roster: [rosterOf("s1"), rosterOf("s2")] } });
    expect(prepared.status).toBe(202);
    await until(async () => (await live(s, examId)).prepared.ready === 2);
    const snapshot = await live(s, examId);
    expect(snapshot.prepared).toEqual({ ready: 2, planned: 2, expiring: 0, expired: 0 });

    // The answer has exactly the fields the OpenAPI document lists (all of them required).
    type Schema = { required: string[]; properties: Record<string, Schema> };
    const schemas = (buildOpenApiDocument() as { components: { schemas: Record<string, Schema> } }).components.schemas;
    const fields = (value: object) => Object.keys(value).sort();
    const listed = schemas.LiveSnapshot!;
    expect(fields(snapshot)).toEqual([...listed.required].sort());
    expect(fields(snapshot.prepared)).toEqual([...listed.properties.prepared!.required].sort());
    expect(fields(snapshot.budget)).toEqual([...listed.properties.budget!.required].sort());
    const progress = (await readJson<{ data: object }>(await s.as("ines", `/oral/oral-assessments/${examId}/prepare`))).data;
    expect(fields(progress)).toEqual([...schemas.PrepareProgress!.required].sort());
  });
});
