/**
 * The CSV export at the client's pace (issues 29 and 47), on real sockets (`net.connect`)
 * and a real SQLite store (its page reads counted): a client that asks for a 6 MB export
 * and never reads makes the server read only what the kernel's socket buffers take; when
 * it goes, the export stops. Each page is written in chunks that fit the socket's buffer
 * (whole rows). A client that reads slowly but steadily (1 MB/s) gets the whole file, the
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
const PAGE = 500;
/**
 * Pages the router may be ahead of what a client has read: what the kernel's socket
 * buffers take on loopback (about 55 pages here) and one page waiting for `drain`.
 */
const KERNEL_PAGES = 80;

const dir = mkdtempSync(join(tmpdir(), "eoa-export-pace-"));
let stack: StormStack;
let examId: string;
/** Pages of launch records the router read from the store. */
let pagesRead = 0;
/** Called at each page read (a test's probe of its client), when set. */
let onRead: (() => void) | undefined;

function counted(store: OralStore): OralStore {
  return {
    ...store,
    listLaunches: (org, query) => {
      pagesRead += 1;
      onRead?.();
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
  await store.addLaunches(DEFAULT_ORGANIZATION, launches(examId, RECORDS));
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
    expect(pagesRead).toBeLessThanOrEqual(KERNEL_PAGES);
    const paused = pagesRead;
    socket.destroy();
    await settle();
    expect(pagesRead).toBeLessThanOrEqual(paused + 1);
  }, 120_000);

  it("a reader at 1 MB/s gets the whole file, each page read only as it reads", async () => {
    // 1 MB/s is slow next to the router, which reads and writes all 120 pages within about
    // a second when nothing holds it back (with backpressure taken out, every page was read
    // before this reader had read a byte). With backpressure the router stays within the
    // kernel's buffers of the reader (57 pages at most here), so its last pages wait until
    // the reader has read 40 pages or more. (It was a 64 KB/s reader of a 3.3 MB exam, 50 s
    // a run, asserting only when the last page was read: what shows the pace is a reader
    // slower than the router on a file larger than the buffers, and now each read is
    // checked against the reader's progress, whatever its speed or the machine's load.)
    const RATE = 1024 * 1024;
    /** What the reader had read when each page was read, bytes. */
    const readBefore: number[] = [];
    const started = Date.now();
    const client = exportAs("s2", examId, { bytesPerSecond: RATE });
    onRead = () => readBefore.push(client.received());
    const answer = await client.response.finally(() => (onRead = undefined));
    const tookMs = Date.now() - started;
    expect(answer.status).toBe(200);
    expect(answer.complete).toBe(true);
    expect(answer.body.trimEnd().split("\r\n")).toHaveLength(RECORDS + 1);
    expect(readBefore).toHaveLength(RECORDS / PAGE);
    // The reader really is slow: 6.6 MB at 1 MB/s, over 6 s.
    expect(tookMs).toBeGreaterThan(0.9 * (answer.body.length / RATE) * 1000);
    // Every page was read when the router was at most the kernel's buffers ahead of the
    // reader (in pages of this export); without backpressure, the last one was 119 ahead.
    const pageBytes = answer.body.length / (RECORDS / PAGE);
    const ahead = readBefore.map((bytes, page) => page - bytes / pageBytes);
    expect(Math.max(...ahead)).toBeLessThanOrEqual(KERNEL_PAGES);
  }, 120_000);
});
