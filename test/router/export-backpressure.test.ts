/**
 * The CSV export at the client's pace (issue 29, part 3): a client that connects, asks for
 * a 6 MB export and never reads (a real socket, `net.connect`, paused) makes the server
 * read only what the kernel's socket buffers take, not the whole export into the
 * process's buffer; when it goes, the export stops. A client that reads gets every record.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import { DEFAULT_ORGANIZATION, type LaunchRecord, type OralStore } from "../../src/store/types.js";
import { startStormStack, type StormStack } from "../storm/support.js";

const RECORDS = 60_000;
const PAGE = 1_000;

let stack: StormStack;
let examId: string;
/** Pages of launch records the router read from the store (a real memory store, counted). */
let pagesRead = 0;

function counted(store: OralStore): OralStore {
  return { ...store, listLaunches: (org, query) => { pagesRead += 1; return store.listLaunches(org, query); } };
}

beforeAll(async () => {
  const store = memoryStore({ maxLaunchRecords: RECORDS });
  stack = await startStormStack({ router: { store: counted(store) } });
  ({ examId } = await stack.seedDirect());
  const at = Date.now() - RECORDS * 10;
  const records: LaunchRecord[] = Array.from({ length: RECORDS }, (_, i) => ({
    at: new Date(at + i * 10).toISOString(), kind: "oral", examId, outcome: "redirected", status: 303,
    servedBy: "prepared", via: "link", student: { orgInternalId: `student-${i}`, email: `student-number-${i}@a-rather-long-school-name.test` },
  }));
  await store.addLaunches(DEFAULT_ORGANIZATION, records);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** A raw HTTP request on a socket that is never read. */
function nonReading(path: string): Socket {
  const { hostname, port } = new URL(stack.app.url);
  const socket = connect(Number(port), hostname);
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/csv\r\nx-test-user: ines\r\n\r\n`);
  return socket;
}

const settle = async () => {
  // Until the router stops reading pages for 300 ms.
  for (let last = -1; last !== pagesRead;) {
    last = pagesRead;
    await new Promise((r) => setTimeout(r, 300));
  }
};

describe("the CSV export and a client that does not read", () => {
  it("a reading client gets every record, in 60 page reads of 1000", async () => {
    pagesRead = 0;
    const csv = await (await fetch(new URL(`/oral/oral-assessments/${examId}/launches`, stack.app.url), { headers: { accept: "text/csv", "x-test-user": "ines" } })).text();
    expect(csv.length).toBeGreaterThan(6_000_000);
    expect(csv.trimEnd().split("\r\n")).toHaveLength(RECORDS + 1);
    expect(pagesRead).toBe(RECORDS / PAGE);
  }, 60_000);

  it("reads a few pages for a client that never reads, and stops when it goes", async () => {
    pagesRead = 0;
    const socket = nonReading(`/oral/oral-assessments/${examId}/launches`);
    await settle();
    // What the kernel's socket buffers take on loopback (about 3 MB here: ~27 pages), plus
    // one page waiting for `drain`; without backpressure all 61 reads happen at once.
    expect(pagesRead).toBeGreaterThan(0);
    expect(pagesRead).toBeLessThanOrEqual(40);
    const paused = pagesRead;
    socket.destroy();
    await settle();
    expect(pagesRead).toBeLessThanOrEqual(paused + 1);
  }, 60_000);
});
