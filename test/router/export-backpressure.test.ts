/**
 * The CSV export at the client's pace (issues 29 and 47), on real sockets (`net.connect`)
 * and a real SQLite store (its page reads counted): a client that asks for a 6 MB export
 * and never reads makes the server read only what the kernel's socket buffers take; when
 * it goes, the export stops. Each page is written in chunks that fit the socket's buffer
 * (whole rows). A client that reads slowly but steadily (64 KB/s) gets the whole file, the
 * pages read as it reads. (A client that stops is let go: export-limits.test.ts.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getDefaultHighWaterMark } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteStore } from "../../src/store/sqlite.js";
import { DEFAULT_ORGANIZATION, type LaunchRecord, type OralStore } from "../../src/store/types.js";
import { startStormStack, type StormStack } from "../storm/support.js";
import { rawGet } from "../support/raw-http.js";

const RECORDS = 60_000;
/**
 * The slow reader's exam: 30 000 records (3.3 MB, 60 pages), so that 64 KB/s takes under a
 * minute; still past what the kernel's buffers take at once, so its last pages wait for it.
 */
const SLOW_RECORDS = 30_000;
const PAGE = 500;

const dir = mkdtempSync(join(tmpdir(), "eoa-export-pace-"));
let stack: StormStack;
let examId: string;
let slowExamId: string;
/** Pages of launch records the router read from the store, and when, per exam. */
let pagesRead = 0;
const readAt = new Map<string, number[]>();

function counted(store: OralStore): OralStore {
  return {
    ...store,
    listLaunches: (org, query) => {
      pagesRead += 1;
      readAt.set(query.examId, [...(readAt.get(query.examId) ?? []), Date.now()]);
      return store.listLaunches(org, query);
    },
  };
}

const launches = (exam: string, count: number): LaunchRecord[] => {
  const at = Date.now() - count * 10;
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(at + i * 10).toISOString(), kind: "oral", examId: exam, outcome: "redirected", status: 303,
    servedBy: "prepared", via: "link", student: { orgInternalId: `student-${i}`, email: `student-number-${i}@a-rather-long-school-name.test` },
  }));
};

beforeAll(async () => {
  const store = sqliteStore({ filename: join(dir, "launches.sqlite") });
  stack = await startStormStack({ router: { store: counted(store), isInstructor: () => true } });
  ({ examId } = await stack.seedDirect());
  ({ examId: slowExamId } = await stack.seedDirect());
  await store.addLaunches(DEFAULT_ORGANIZATION, launches(examId, RECORDS));
  await store.addLaunches(DEFAULT_ORGANIZATION, launches(slowExamId, SLOW_RECORDS));
}, 120_000);

afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An export of `exam` as `user` on a raw socket. */
const exportAs = (user: string, exam: string, options: Parameters<typeof rawGet>[3] = {}) =>
  rawGet(stack.app.url, `/oral/oral-assessments/${exam}/launches`, { Accept: "text/csv", "x-test-user": user }, options);

const settle = async () => {
  // Until the router stops reading pages for 500 ms.
  for (let last = -1; last !== pagesRead;) {
    last = pagesRead;
    await new Promise((r) => setTimeout(r, 500));
  }
};

describe("the CSV export at the client's pace", () => {
  it("a reading client gets every record, in 120 page reads of 500, in chunks that fit the socket's buffer", async () => {
    pagesRead = 0;
    const answer = await exportAs("ines", examId).response;
    expect(answer.status).toBe(200);
    expect(answer.complete).toBe(true);
    expect(answer.body.length).toBeGreaterThan(6_000_000);
    expect(answer.body.trimEnd().split("\r\n")).toHaveLength(RECORDS + 1);
    expect(pagesRead).toBe(RECORDS / PAGE);
    // One HTTP chunk per write: none past the socket's high-water mark (a page is ~55 kB), each whole rows.
    const sizes = answer.chunks.map((c) => c.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(getDefaultHighWaterMark(false));
    expect(sizes.length).toBeGreaterThan(answer.body.length / getDefaultHighWaterMark(false));
    expect(answer.chunks.every((c) => c.subarray(-2).toString() === "\r\n")).toBe(true);
  }, 120_000);

  it("reads a few pages for a client that never reads, and stops when it goes", async () => {
    pagesRead = 0;
    const { socket } = exportAs("s1", examId, { paused: true });
    await settle();
    // What the kernel's socket buffers take on loopback (about 3 MB here: ~55 pages), plus
    // one page waiting for `drain`; without backpressure all 121 reads happen at once.
    expect(pagesRead).toBeGreaterThan(0);
    expect(pagesRead).toBeLessThanOrEqual(80);
    const paused = pagesRead;
    socket.destroy();
    await settle();
    expect(pagesRead).toBeLessThanOrEqual(paused + 1);
  }, 120_000);

  it("a reader at 64 KB/s gets the whole file, its last pages read only as it reads", async () => {
    readAt.delete(slowExamId);
    const started = Date.now();
    const answer = await exportAs("s2", slowExamId, { bytesPerSecond: 64 * 1024 }).response;
    const tookMs = Date.now() - started;
    expect(answer.status).toBe(200);
    expect(answer.complete).toBe(true);
    expect(answer.body.trimEnd().split("\r\n")).toHaveLength(SLOW_RECORDS + 1);
    const reads = readAt.get(slowExamId)!;
    expect(reads).toHaveLength(SLOW_RECORDS / PAGE);
    // 3.3 MB at 64 KB/s: about 50 s (the reader really is slow). Read at once, the 60 pages
    // take well under a second; here the last ones wait until the kernel has room again.
    expect(tookMs).toBeGreaterThan(40_000);
    expect(reads.at(-1)! - started).toBeGreaterThan(10_000);
  }, 120_000);
});
