/**
 * The live view's streams (issue 29, part 2): twenty streams on one exam cost one
 * aggregate of the store per period, not twenty (counted through a real memory store
 * wrapped, not a mock), and every stream gets every snapshot; streams are capped per user,
 * per organization and per router with 429 problem+json and Retry-After; closing the
 * router ends the streams.
 */
import { afterEach, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import type { OralStore } from "../../src/store/types.js";
import type { OralAssessmentsOptions } from "../../src/index.js";
import { startStormStack, type StormStack } from "./support.js";

let stack: StormStack | undefined;
const aborts: AbortController[] = [];
afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await stack?.close();
  stack = undefined;
});

/** Latest-per-student aggregates the router asked of the store. */
let aggregates = 0;
function counted(store: OralStore): OralStore {
  return { ...store, countLaunches: (org, query) => { if (query.latestPerStudent) aggregates += 1; return store.countLaunches(org, query); } };
}

async function start(router: Partial<OralAssessmentsOptions> = {}): Promise<{ s: StormStack; examId: string }> {
  aggregates = 0;
  stack = await startStormStack({ router: { store: counted(memoryStore()), isInstructor: () => true, ...router } });
  const { examId } = await stack.seedDirect();
  return { s: stack, examId };
}

interface Stream { status: number; snapshots: number; ended: Promise<void>; problem?: { code: string; detail: string }; retryAfter: string | null }

/** Opens a stream as `user` and counts its snapshots until it ends or is aborted. */
async function open(s: StormStack, examId: string, user: string): Promise<Stream> {
  const abort = new AbortController();
  aborts.push(abort);
  const res = await fetch(new URL(`/oral/oral-assessments/${examId}/live`, s.app.url), { headers: { accept: "text/event-stream", "x-test-user": user }, signal: abort.signal });
  const stream: Stream = { status: res.status, snapshots: 0, ended: Promise.resolve(), retryAfter: res.headers.get("retry-after") };
  if (res.status !== 200) {
    stream.problem = await res.json() as Stream["problem"];
    return stream;
  }
  const reader = res.body!.getReader();
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        stream.snapshots += decoder.decode(value, { stream: true }).split("event: snapshot").length - 1;
      }
    } catch {
      // aborted
    }
  })();
  return stream;
}

describe("the live view's event streams", () => {
  it("twenty streams on one exam: one aggregate per period, every stream fed", { timeout: 30_000 }, async () => {
    const { s, examId } = await start({ live: { maxStreamsPerUser: 20 } });
    const streams = await Promise.all(Array.from({ length: 20 }, () => open(s, examId, "ines")));
    expect(streams.map((x) => x.status)).toEqual(Array(20).fill(200));
    const from = aggregates;
    // Three periods of 2 s.
    await new Promise((r) => setTimeout(r, 6_200));
    const perPeriod = (aggregates - from) / 3;
    expect(perPeriod).toBeGreaterThan(0);
    expect(perPeriod).toBeLessThanOrEqual(1.34); // 20 a period before the fan-out
    for (const x of streams) expect(x.snapshots).toBeGreaterThanOrEqual(3);
  });

  it("caps streams per user, per organization and per router: 429 problem+json with Retry-After", { timeout: 30_000 }, async () => {
    const { s, examId } = await start({ live: { maxStreamsPerUser: 2, maxStreamsPerOrganization: 3, maxStreams: 10 } });
    const [a, b] = [await open(s, examId, "s1"), await open(s, examId, "s1")];
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await open(s, examId, "s1");
    expect(third.status).toBe(429);
    expect(third.retryAfter).toMatch(/^\d+$/);
    expect(third.problem).toMatchObject({ code: "too_many_streams" });
    expect(third.problem!.detail).toContain("live.maxStreamsPerUser");
    expect((await open(s, examId, "s2")).status).toBe(200);
    const overOrg = await open(s, examId, "s3");
    expect(overOrg.status).toBe(429);
    expect(overOrg.problem!.detail).toContain("live.maxStreamsPerOrganization");
    // A stream that goes gives its place back.
    aborts[0]!.abort();
    await expect.poll(async () => (await open(s, examId, "s3")).status).toBe(200);
  });

  it("caps the streams of the whole router", { timeout: 30_000 }, async () => {
    const { s, examId } = await start({ live: { maxStreams: 2 } });
    expect((await open(s, examId, "s1")).status).toBe(200);
    expect((await open(s, examId, "s2")).status).toBe(200);
    const over = await open(s, examId, "s3");
    expect(over.status).toBe(429);
    expect(over.problem!.detail).toContain("live.maxStreams");
  });

  it("closing the router ends every stream", { timeout: 30_000 }, async () => {
    const { s, examId } = await start();
    const streams = [await open(s, examId, "s1"), await open(s, examId, "s2")];
    await expect.poll(() => streams.every((x) => x.snapshots >= 1)).toBe(true);
    await s.router.close();
    await Promise.all(streams.map((x) => x.ended));
  });

  it("refuses a wrong cap at start-up, naming it", async () => {
    await expect(start({ live: { maxStreamsPerUser: 0 } })).rejects.toThrow(/live\.maxStreamsPerUser/);
  });
});
