/**
 * The launch record's promises, run against each backend (from store-contract.ts).
 */
import { expect, it } from "vitest";
import type { LaunchRecord, OralStore } from "../../src/store/types.js";

const ORG = "north";

export function describeLaunchContract(open: () => OralStore): void {
  const at = (second: number) => new Date(Date.UTC(2026, 5, 1, 9, 0, second)).toISOString();
  const launch = (second: number, student: string, extra: Partial<LaunchRecord> = {}): LaunchRecord => ({
    at: at(second), kind: "oral", examId: "e1", outcome: "redirected", status: 303, servedBy: "prepared", via: "link",
    student: { orgInternalId: student, email: `${student}@school.test` }, ...extra,
  });
  const who = (records: LaunchRecord[]) => records.map((r) => `${r.student.orgInternalId}@${r.at.slice(17, 19)}`);

  it("launch records: given back whole, newest first, the later written first at the same instant", async () => {
    const store = open();
    const ana = launch(1, "ana", { outcome: "launch_limited", status: 429, servedBy: "none", via: "lti", instance: "i-1" });
    await store.addLaunches(ORG, [launch(0, "ben"), ana]);
    await store.addLaunches(ORG, [launch(2, "cy"), launch(2, "dee")]);
    const page = await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 10 });
    expect(who(page.records)).toEqual(["dee@02", "cy@02", "ana@01", "ben@00"]);
    expect(page.records[2]).toEqual(ana);
    expect(page.records[3]).not.toHaveProperty("instance");
    expect(page.nextCursor).toBeUndefined();
  });

  it("launch records: pages by cursor, stable while newer launches are added", async () => {
    const store = open();
    await store.addLaunches(ORG, Array.from({ length: 5 }, (_, i) => launch(i, `s${i}`)));
    const first = await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 2 });
    expect(who(first.records)).toEqual(["s4@04", "s3@03"]);
    await store.addLaunches(ORG, [launch(9, "late"), launch(3, "tie")]);
    const second = await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 2, cursor: first.nextCursor! });
    // "tie" was written after s3 at the same instant: it sorts before s3, so it is on no later page.
    expect(who(second.records)).toEqual(["s2@02", "s1@01"]);
    const third = await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 2, cursor: second.nextCursor! });
    expect(who(third.records)).toEqual(["s0@00"]);
    expect(third.nextCursor).toBeUndefined();
    await expect(store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 2, cursor: "bm9wZQ" })).rejects.toThrow(TypeError);
  });

  it("launch records: filtered by student (id or e-mail) and outcome; by exam, kind and organization", async () => {
    const store = open();
    await store.addLaunches(ORG, [
      launch(0, "ana", { outcome: "forbidden", status: 403, servedBy: "none" }),
      launch(1, "ana"),
      launch(2, "ben", { outcome: "forbidden", status: 403, servedBy: "none" }),
      launch(3, "ana", { examId: "e2" }),
      launch(4, "ana", { kind: "roleplay" }),
    ]);
    await store.addLaunches("south", [launch(5, "ana")]);
    const list = (q: Partial<Parameters<OralStore["listLaunches"]>[1]>, org = ORG) =>
      store.listLaunches(org, { kind: "oral", examId: "e1", limit: 10, ...q }).then((p) => who(p.records));
    expect(await list({ student: "ana" })).toEqual(["ana@01", "ana@00"]);
    expect(await list({ student: "ana@school.test" })).toEqual(["ana@01", "ana@00"]);
    expect(await list({ outcome: "forbidden" })).toEqual(["ben@02", "ana@00"]);
    expect(await list({ outcome: "forbidden", student: "ben" })).toEqual(["ben@02"]);
    expect(await list({ kind: "roleplay" })).toEqual(["ana@04"]);
    expect(await list({ examId: "e2" })).toEqual(["ana@03"]);
    expect(await list({}, "south")).toEqual(["ana@05"]);
    expect(await list({}, "east")).toEqual([]);
  });

  it("launch records: counted per outcome, or per student by their latest outcome, since an instant", async () => {
    const store = open();
    await store.addLaunches(ORG, [
      launch(0, "ana", { outcome: "waiting", status: 202, servedBy: "none" }),
      launch(1, "ana"),
      launch(2, "ben", { outcome: "waiting", status: 202, servedBy: "none" }),
      launch(2, "cy", { outcome: "forbidden", status: 403, servedBy: "none" }),
      launch(3, "dee", { examId: "e2" }),
    ]);
    await store.addLaunches("south", [launch(4, "eve")]);
    const count = (q: object = {}) => store.countLaunches(ORG, { kind: "oral", examId: "e1", ...q });
    expect(await count()).toEqual({ waiting: 2, redirected: 1, forbidden: 1 });
    expect(await count({ latestPerStudent: true })).toEqual({ redirected: 1, waiting: 1, forbidden: 1 });
    expect(await count({ since: Date.parse(at(2)) })).toEqual({ waiting: 1, forbidden: 1 });
    expect(await count({ kind: "roleplay" })).toEqual({});
  });

  it("launch records: each student's latest outcome kept as records are written, whatever their order, across batches and purges", async () => {
    const store = open();
    const latest = (since?: number) => store.countLaunches(ORG, { kind: "oral", examId: "e1", latestPerStudent: true, ...(since === undefined ? {} : { since }) });
    await store.addLaunches(ORG, [launch(5, "ana", { outcome: "waiting", status: 202, servedBy: "none" }), launch(1, "ben")]);
    // An older record written later (another instance's late batch) does not replace a later one.
    await store.addLaunches(ORG, [launch(3, "ana"), launch(7, "ben", { outcome: "forbidden", status: 403, servedBy: "none" })]);
    expect(await latest()).toEqual({ waiting: 1, forbidden: 1 });
    // The same instant: the later written wins.
    await store.addLaunches(ORG, [launch(7, "ben", { examId: "e2" }), launch(7, "ben")]);
    expect(await latest()).toEqual({ waiting: 1, redirected: 1 });
    expect(await latest(Date.parse(at(6)))).toEqual({ redirected: 1 });
    // Purged past ana's latest: ana is gone; ben's latest (at 7) stays.
    await store.purgeLaunches(Date.parse(at(6)));
    expect(await latest()).toEqual({ redirected: 1 });
    expect(await store.countLaunches(ORG, { kind: "oral", examId: "e2", latestPerStudent: true })).toEqual({ redirected: 1 });
  });

  it("launch records: purged before an instant, in every organization", async () => {
    const store = open();
    await store.addLaunches(ORG, [launch(0, "old"), launch(10, "new")]);
    await store.addLaunches("south", [launch(1, "old")]);
    expect(await store.purgeLaunches(Date.parse(at(5)))).toBe(2);
    expect(who((await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 10 })).records)).toEqual(["new@10"]);
    expect((await store.listLaunches("south", { kind: "oral", examId: "e1", limit: 10 })).records).toEqual([]);
  });

  it("launch records: a malformed record or organization is refused, nothing written", async () => {
    const store = open();
    await expect(store.addLaunches(ORG, [launch(0, "a"), { ...launch(1, "b"), status: 42 }])).rejects.toThrow(/status/);
    await expect(store.addLaunches("no org", [launch(0, "a")])).rejects.toThrow(TypeError);
    expect((await store.listLaunches(ORG, { kind: "oral", examId: "e1", limit: 10 })).records).toEqual([]);
  });
}
