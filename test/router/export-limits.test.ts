/**
 * Launch-record exports are capped like live views (issue 47): per user, per organization
 * and per router (`launchExports`). Exports are held open by clients that stop reading
 * (real sockets, paused) on an export larger than the kernel's socket buffers; one beyond
 * a cap is 429 problem+json with `Retry-After`, naming the cap, and reads nothing from the
 * store (a real SQLite store, its reads counted by query). JSON pages count as CSV exports
 * do; a place frees when its client goes, or when a client that stopped reading is let go
 * after `stalledMs`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sqliteStore } from "../../src/store/sqlite.js";
import { DEFAULT_ORGANIZATION, type LaunchRecord, type OralStore } from "../../src/store/types.js";
import type { OralAssessmentsOptions } from "../../src/index.js";
import { startStormStack, type StormStack } from "../storm/support.js";
import { rawGet } from "../support/raw-http.js";

const RECORDS = 60_000;
/** A refused request asks for this outcome, so its reads (none) are told from the held exports'. */
const MARKER = "marker_outcome";

let markerReads = 0;
/** A real memory store, its reads of the marker outcome counted. */
function counted(store: OralStore): OralStore {
  return { ...store, listLaunches: (org, query) => { if (query.outcome === MARKER) markerReads += 1; return store.listLaunches(org, query); } };
}
let records: LaunchRecord[] = [];

const dir = mkdtempSync(join(tmpdir(), "eoa-export-caps-"));
let stack: StormStack | undefined;
let examId: string;
const held: Socket[] = [];

beforeAll(() => {
  records = Array.from({ length: RECORDS }, (_, i) => ({
    at: new Date(Date.now() - (RECORDS - i) * 10).toISOString(), kind: "oral", examId: "", outcome: "redirected", status: 303,
    servedBy: "prepared", via: "link", student: { orgInternalId: `student-${i}`, email: `student-number-${i}@a-rather-long-school-name.test` },
  }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

afterEach(async () => {
  for (const s of held.splice(0)) s.destroy();
  await stack?.close();
  stack = undefined;
});

async function start(router: Partial<OralAssessmentsOptions> = {}): Promise<void> {
  markerReads = 0;
  const store = sqliteStore({ filename: join(dir, `${Math.random().toString(36).slice(2)}.sqlite`) });
  stack = await startStormStack({ router: { store: counted(store), isInstructor: () => true, ...router } });
  ({ examId } = await stack.seedDirect());
  await store.addLaunches(DEFAULT_ORGANIZATION, records.map((r) => ({ ...r, examId })));
}

const path = (query = "") => `/oral/oral-assessments/${examId}/launches${query}`;

/** A CSV export as `user` that its client never reads: held open until the socket goes. */
async function hold(user: string): Promise<Socket> {
  const { socket, started } = rawGet(stack!.app.url, path(), { Accept: "text/csv", "x-test-user": user }, { stopAfterFirst: true });
  held.push(socket);
  await started; // its place is taken before its first byte is written
  return socket;
}

/** One more request as `user` for the marker outcome: its status, problem and Retry-After. */
async function another(user: string, accept: "text/csv" | "application/json") {
  const res = await fetch(new URL(path(`?outcome=${MARKER}`), stack!.app.url), { headers: { accept, "x-test-user": user } });
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status, type, retryAfter: res.headers.get("retry-after"),
    problem: type.startsWith("application/problem+json") ? await res.json() as { code: string; detail: string } : (await res.arrayBuffer(), undefined),
  };
}

describe("launch-record exports are capped", () => {
  it("with the default caps, one user's sixth export is a 429 with Retry-After that reads nothing; others still export", { timeout: 120_000 }, async () => {
    await start();
    for (let i = 0; i < 5; i++) await hold("s1");
    markerReads = 0;
    for (const accept of ["text/csv", "application/json"] as const) {
      const over = await another("s1", accept);
      expect(over.status, accept).toBe(429);
      expect(over.type).toContain("application/problem+json");
      expect(Number(over.retryAfter)).toBeGreaterThan(0);
      expect(over.problem).toMatchObject({ code: "too_many_exports" });
      expect(over.problem!.detail).toContain("launchExports.maxExportsPerUser");
    }
    expect(markerReads).toBe(0);
    // Another user of the school is under every cap: answered, read.
    expect((await another("s2", "text/csv")).status).toBe(200);
    expect(markerReads).toBe(1);
    // One of the five goes: its place frees.
    held.shift()!.destroy();
    await new Promise((r) => setTimeout(r, 300));
    expect((await another("s1", "application/json")).status).toBe(200);
  });

  it("caps per organization and per router, each named in the refusal", { timeout: 120_000 }, async () => {
    await start({ launchExports: { maxExportsPerUser: 2, maxExportsPerOrganization: 3 } });
    await hold("s1");
    await hold("s1");
    const third = await another("s1", "text/csv");
    expect(third.status).toBe(429);
    expect(third.problem!.detail).toContain("launchExports.maxExportsPerUser");
    await hold("s2");
    const overOrg = await another("s3", "application/json");
    expect(overOrg.status).toBe(429);
    expect(overOrg.problem!.detail).toContain("launchExports.maxExportsPerOrganization");
    expect(markerReads).toBe(0);
    for (const s of held.splice(0)) s.destroy();
    await stack!.close();

    await start({ launchExports: { maxExports: 2 } });
    await hold("s1");
    await hold("s2");
    const over = await another("s3", "text/csv");
    expect(over.status).toBe(429);
    expect(over.retryAfter).not.toBeNull();
    expect(over.problem!.detail).toContain("launchExports.maxExports)");
    expect(markerReads).toBe(0);
  });

  it("a client that stops reading is let go after stalledMs: its answer cut short, its place freed", { timeout: 120_000 }, async () => {
    await start({ launchExports: { maxExportsPerUser: 1, stalledMs: 2_000 } });
    const stopped = rawGet(stack!.app.url, path(), { Accept: "text/csv", "x-test-user": "s1" }, { stopAfterFirst: true });
    held.push(stopped.socket);
    await stopped.started;
    expect((await another("s1", "application/json")).status).toBe(429);
    // Once the kernel's buffers are full, 2 s without a drain: let go, the place freed.
    const deadline = Date.now() + 60_000;
    let status = 429;
    while (status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1_000));
      status = (await another("s1", "application/json")).status;
    }
    expect(status).toBe(200);
    stopped.socket.resume();
    const answer = await stopped.response;
    expect(answer.status).toBe(200);
    expect(answer.complete).toBe(false);
    expect(answer.body.split("\r\n").length).toBeLessThan(RECORDS);
  });

  it("a cap below 1 is a configuration error naming the option", async () => {
    await expect(start({ launchExports: { maxExportsPerUser: 0 } })).rejects.toThrow(/launchExports\.maxExportsPerUser/);
  });
});
