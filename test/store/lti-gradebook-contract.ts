/**
 * The gradebook's promises (schema versions 10, 11 and 13), run against each backend (from
 * store-contract.ts): a line item is kept per exam and LMS course (first wins); the score
 * outbox hands each entry to one claimer at a time, keeps a learner's entries in order,
 * takes a leased entry back once its lease ran out, and survives a reopen; a newer waiting
 * entry of the same status supersedes an older one (never the head); a settle's note is kept
 * whole, whatever its fields; a claim skips the LMSs it is told to and ignores the sent rows
 * however many; settled rows are purged after their retention, pending ones never.
 */
import { expect, it } from "vitest";
import type { LtiLineItemKey, LtiScoreEntry, OralStoreWithLti } from "../../src/store/types.js";

const KEY: LtiLineItemKey = { issuer: "https://school.brightspace.com", clientId: "c-1", deploymentId: "D-1", contextId: "ctx-1", kind: "oral", examId: "exam-1" };
const entry = (id: string, userId: string, activityProgress: "Started" | "Submitted" = "Started", lms = "https://lms.example"): LtiScoreEntry => ({
  id, key: KEY, userId, student: { orgInternalId: `sis-${userId}`, email: `${userId}@school.example` }, label: "Oral exam",
  ags: { lineItems: `${lms}/lineitems`, scope: ["s"] },
  score: { activityProgress, gradingProgress: activityProgress === "Started" ? "NotReady" : "PendingManual", timestamp: "2026-11-01T09:00:00.000Z", comment: "c" },
  queuedAt: new Date().toISOString(),
});

export function describeLtiGradebookContract(open: () => OralStoreWithLti, reopen?: (store: OralStoreWithLti) => OralStoreWithLti): void {
  it("LTI line items: per exam and course, first wins, in its organization only", async () => {
    const store = open();
    expect(await store.getLtiLineItem("north", KEY)).toBeUndefined();
    expect(await store.putLtiLineItem("north", KEY, "https://lms.example/li/1")).toBe("https://lms.example/li/1");
    expect(await store.putLtiLineItem("north", KEY, "https://lms.example/li/2")).toBe("https://lms.example/li/1");
    expect(await store.getLtiLineItem("north", { ...KEY, examId: "exam-2" })).toBeUndefined();
    expect(await store.getLtiLineItem("south", KEY)).toBeUndefined();
  });

  it("LTI score outbox: one claimer per entry, a learner's entries in order, a lapsed lease claimed again", async () => {
    const store = open();
    expect(await store.addLtiScores("north", [entry("a1", "ana"), entry("a2", "ana", "Submitted"), entry("b1", "ben")])).toBe(3);
    expect(await store.addLtiScores("north", [entry("a1", "ana")])).toBe(0);
    const now = Date.now() + 1000;
    const first = await store.claimLtiScores(now, 10, 30_000);
    expect(first.map((r) => r.id).sort()).toEqual(["a1", "b1"]);
    expect(first[0]).toMatchObject({ org: "north", state: "pending", attempts: 0 });
    expect(await store.claimLtiScores(now, 10, 30_000)).toEqual([]);
    await store.settleLtiScore("a1", { state: "sent", attempts: 1, nextAtMs: now, sentAt: "2026-11-01T09:00:01.000Z" });
    expect((await store.claimLtiScores(now, 10, 30_000)).map((r) => r.id)).toEqual(["a2"]);
    // b1's lease runs out: claimed again.
    expect((await store.claimLtiScores(now + 31_000, 10, 30_000)).map((r) => r.id).sort()).toEqual(["a2", "b1"]);
    const listed = await store.listLtiScores("north", { kind: "oral", examId: "exam-1", student: "sis-ana", limit: 10 });
    expect(listed.map((r) => [r.id, r.state, r.sentAt])).toEqual([["a2", "pending", undefined], ["a1", "sent", "2026-11-01T09:00:01.000Z"]]);
    expect(await store.listLtiScores("south", { kind: "oral", examId: "exam-1", limit: 10 })).toEqual([]);
  });

  it("LTI score outbox: a newer waiting entry of the same status supersedes an older one; the head is never superseded", async () => {
    const store = open();
    // ana: Started (head), Submitted, then a second and a third Submitted: only the last waits.
    expect(await store.addLtiScores("north", [entry("h", "ana"), entry("s1", "ana", "Submitted")])).toBe(2);
    expect(await store.addLtiScores("north", [entry("s2", "ana", "Submitted")])).toBe(1);
    expect(await store.addLtiScores("north", [entry("s3", "ana", "Submitted"), entry("s2", "ana", "Submitted")])).toBe(1);
    // A Started while Started is the head (maybe in flight) waits behind it: the head stays.
    expect(await store.addLtiScores("north", [entry("h2", "ana")])).toBe(1);
    const states = async () => Object.fromEntries((await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 })).map((r) => [r.id, r.state]));
    expect(await states()).toEqual({ h: "pending", s1: "superseded", s2: "superseded", s3: "pending", h2: "pending" });
    const now = Date.now() + 1000;
    expect((await store.claimLtiScores(now, 10, 30_000)).map((r) => r.id)).toEqual(["h"]);
    await store.settleLtiScore("h", { state: "sent", attempts: 1, nextAtMs: now, sentAt: new Date(now).toISOString() });
    expect((await store.claimLtiScores(now, 10, 30_000)).map((r) => r.id)).toEqual(["s3"]);
    await store.settleLtiScore("s3", { state: "failed", attempts: 1, nextAtMs: now, lastError: "no" });
    expect((await store.claimLtiScores(now, 10, 30_000)).map((r) => r.id)).toEqual(["h2"]);
    // A superseded id stays known: queued again, it is skipped.
    expect(await store.addLtiScores("north", [entry("s1", "ana", "Submitted")])).toBe(0);
  });

  it("LTI score outbox: a settle's note is kept whole (and through a reopen), fields the store does not know included, beside the error; the next settle without one clears it", async () => {
    const store = open();
    await store.addLtiScores("north", [entry("n1", "nia"), entry("o1", "oto"), entry("p1", "pia")]);
    const now = Date.now() + 1000;
    await store.claimLtiScores(now, 10, 30_000);
    // A fact no store code names (a new read from the LMS): it must come back as it went, nested and typed.
    const note = { unchanged: true, handGrade: { scoreGiven: 15, scoreMaximum: 20, comment: "typed" }, lmsFact: { at: "2026-11-01T09:00:00Z", n: [1, 2.5], ok: false, none: null } };
    await store.settleLtiScore("n1", { state: "sent", attempts: 1, nextAtMs: now, sentAt: new Date(now).toISOString(), note });
    await store.settleLtiScore("o1", { state: "failed", attempts: 1, nextAtMs: now, lastError: "no", note: { lineItem: "keeps no grade" } });
    await store.settleLtiScore("p1", { state: "pending", attempts: 1, nextAtMs: now, lastError: "503", note });
    await store.settleLtiScore("p1", { state: "pending", attempts: 2, nextAtMs: now, lastError: "504" });
    note.handGrade.scoreGiven = 0; // the store kept its own copy
    let read = store;
    if (reopen) {
      await store.close();
      read = reopen(store);
    }
    const listed = new Map((await read.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 })).map((r) => [r.id, r]));
    expect(listed.get("n1")!.note).toEqual({ ...note, handGrade: { ...note.handGrade, scoreGiven: 15 } });
    expect(listed.get("n1")!.lastError).toBeUndefined();
    expect(listed.get("o1")).toMatchObject({ state: "failed", lastError: "no", note: { lineItem: "keeps no grade" } });
    expect(listed.get("p1")).toMatchObject({ state: "pending", lastError: "504" });
    expect(listed.get("p1")!.note).toBeUndefined();
  });

  it("LTI score outbox: a claim skips the LMSs it is told to; a retry waits for its time and keeps the learner's order", async () => {
    const store = open();
    await store.addLtiScores("north", [entry("x1", "xia", "Started", "https://slow.example"), entry("y1", "yan", "Started", "https://fast.example"), entry("y2", "yan", "Submitted", "https://fast.example")]);
    const now = Date.now() + 1000;
    expect((await store.claimLtiScores(now, 10, 30_000, ["https://slow.example"])).map((r) => r.id)).toEqual(["y1"]);
    // y1 to be retried in 5 s: y2 (same learner) waits for it, x1 (another learner) does not.
    await store.settleLtiScore("y1", { state: "pending", attempts: 1, nextAtMs: now + 5_000, lastError: "503" });
    expect((await store.claimLtiScores(now, 10, 30_000)).map((r) => r.id)).toEqual(["x1"]);
    expect((await store.claimLtiScores(now + 5_000, 10, 30_000)).map((r) => r.id)).toEqual(["y1"]);
  });

  it("LTI score outbox: deferring an LMS makes its waiting heads due at the pause's end; later ones, other LMSs' and queued-behind entries keep theirs", async () => {
    const store = open();
    await store.addLtiScores("north", [entry("p1", "pia", "Started", "https://paused.example"), entry("p2", "pia", "Submitted", "https://paused.example"),
      entry("q1", "quinn", "Started", "https://paused.example"), entry("r1", "rui", "Started", "https://other.example")]);
    const now = Date.now() + 1000;
    // Both heads of the paused LMS claimed, leased for 120 s; quinn's answered 429 and is due again now, pia's still in flight.
    expect((await store.claimLtiScores(now, 10, 120_000, ["https://other.example"])).map((r) => r.id).sort()).toEqual(["p1", "q1"]);
    await store.settleLtiScore("q1", { state: "pending", attempts: 1, nextAtMs: now, lastError: "429" });
    expect(await store.deferLtiScores("https://paused.example", now + 30_000)).toBe(1);
    expect(await store.claimLtiScores(now + 29_999, 10, 1_000)).toMatchObject([{ id: "r1" }]);
    expect((await store.claimLtiScores(now + 30_000, 10, 1_000)).map((r) => r.id)).toEqual(["q1"]);
    // p1 keeps its lease (past the pause), p2 waits behind it.
    const rows = await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 });
    expect(rows.find((r) => r.id === "p1")!.nextAtMs).toBe(now + 120_000);
    expect(await store.deferLtiScores("https://nowhere.example", now + 60_000)).toBe(0);
  });

  it("LTI score outbox: a claim among 300 sent rows of one learner takes only the heads; purge deletes settled rows past the retention, never pending ones", async () => {
    const store = open();
    // One at a time: each becomes the head and is sent (a learner's long history).
    const past = Date.now() - 60_000;
    for (const e of Array.from({ length: 300 }, (_, i) => entry(`old-${i}`, "olga", "Submitted"))) {
      await store.addLtiScores("north", [e]);
      await store.settleLtiScore(e.id, { state: "sent", attempts: 1, nextAtMs: past, sentAt: new Date().toISOString() });
    }
    await store.addLtiScores("north", [entry("new-1", "olga", "Submitted"), entry("new-2", "pia")]);
    const now = Date.now() + 1000;
    expect((await store.claimLtiScores(now, 10, 30_000)).map((r) => r.id).sort()).toEqual(["new-1", "new-2"]);
    await store.settleLtiScore("new-2", { state: "sent", attempts: 1, nextAtMs: now, sentAt: new Date(now).toISOString() });
    expect(await store.purgeLtiScores(past + 1, 200)).toBe(200);
    expect(await store.purgeLtiScores(past + 1, 200)).toBe(100);
    expect(await store.purgeLtiScores(past + 1, 200)).toBe(0);
    const left = await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 });
    expect(left.map((r) => [r.id, r.state]).sort()).toEqual([["new-1", "pending"], ["new-2", "sent"]]);
    expect(await store.purgeLtiScores(now + 1, 10)).toBe(1);
  });

  if (reopen) {
    it("LTI score outbox: a queued entry survives a reopen", async () => {
      const store = open();
      await store.addLtiScores("north", [entry("k1", "kim")]);
      await store.close();
      const again = reopen(store);
      const claimed = await again.claimLtiScores(Date.now() + 1000, 10, 1000);
      expect(claimed.map((r) => [r.id, r.userId, r.score.activityProgress])).toEqual([["k1", "kim", "Started"]]);
    });
  }
}
