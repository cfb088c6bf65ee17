/**
 * The gradebook's promises (schema version 10), run against each backend (from
 * store-contract.ts): a line item is kept per exam and LMS course (first wins); the score
 * outbox hands each entry to one claimer at a time, keeps a learner's entries in order,
 * takes a leased entry back once its lease ran out, and survives a reopen.
 */
import { expect, it } from "vitest";
import type { LtiLineItemKey, LtiScoreEntry, OralStore } from "../../src/store/types.js";

const KEY: LtiLineItemKey = { issuer: "https://school.brightspace.com", clientId: "c-1", deploymentId: "D-1", contextId: "ctx-1", kind: "oral", examId: "exam-1" };
const entry = (id: string, userId: string, activityProgress: "Started" | "Submitted" = "Started"): LtiScoreEntry => ({
  id, key: KEY, userId, student: { orgInternalId: `sis-${userId}`, email: `${userId}@school.example` }, label: "Oral exam",
  ags: { lineItems: "https://lms.example/lineitems", scope: ["s"] },
  score: { activityProgress, gradingProgress: activityProgress === "Started" ? "NotReady" : "PendingManual", timestamp: "2026-11-01T09:00:00.000Z", comment: "c" },
  queuedAt: new Date().toISOString(),
});

export function describeLtiGradebookContract(open: () => OralStore, reopen?: (store: OralStore) => OralStore): void {
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
