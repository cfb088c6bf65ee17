/**
 * What a version-10 score outbox held, for the upgrade tests of both SQL stores: ana's
 * first entry sent and two pending (the first of them is her head once upgraded), ben's
 * one pending at another LMS (its origin upper-cased and with a port, as an LMS may write it).
 */
import { expect } from "vitest";
import type { LtiScoreEntry, OralStoreWithLti } from "../../src/store/types.js";

const entryOf = (id: string, userId: string, lineItem: string): LtiScoreEntry => ({
    id, key: { issuer: "https://lms.example", clientId: "c-1", deploymentId: "D-1", contextId: "ctx-1", kind: "oral", examId: "exam-1" },
    userId, student: { email: `${userId}@x.test` }, label: "Oral exam", ags: { lineItem, scope: ["s"] },
    score: { activityProgress: "Submitted", gradingProgress: "PendingManual", timestamp: "2026-11-01T09:00:00.000Z", comment: "c" },
    queuedAt: "2026-11-01T09:00:00.000Z",
});
const row = (id: string, userId: string, lineItem: string, state: string) => {
  const entry = entryOf(id, userId, lineItem);
  return [id, "north", "oral", "exam-1", userId, "https://lms.example", JSON.stringify(entry), state, 1_000, 1_000] as const;
};

/** Columns: id, organization, kind, exam_id, user_id, issuer, entry, state, next_ms, queued_ms. */
export const V10_SCORE_ROWS = [
  row("a1", "ana", "https://lms.example/li/1", "sent"),
  row("a2", "ana", "https://lms.example/li/1", "pending"),
  row("a3", "ana", "https://lms.example/li/1", "pending"),
  row("b1", "ben", "https://Other.example:8443/li/9?x=1", "pending"),
];

/** After the upgrade: heads, lanes and replace keys as if the entries had been queued by this release. */
export async function expectV10ScoresUpgraded(store: OralStoreWithLti): Promise<void> {
  expect((await store.claimLtiScores(5_000, 10, 1_000, ["https://other.example:8443"])).map((r) => r.id)).toEqual(["a2"]);
  expect((await store.claimLtiScores(5_000, 10, 1_000, ["https://lms.example"])).map((r) => r.id)).toEqual(["b1"]);
  // A new Submitted of ana's in the same course supersedes her waiting one (a3), as one queued by this release would.
  expect(await store.addLtiScores("north", [entryOf("a4", "ana", "https://lms.example/li/1")])).toBe(1);
  const states = (await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 })).filter((r) => r.userId === "ana");
  expect(states.map((r) => [r.id, r.state])).toEqual([["a4", "pending"], ["a3", "superseded"], ["a2", "pending"], ["a1", "sent"]]);
  await store.settleLtiScore("a2", { state: "sent", attempts: 1, nextAtMs: 5_000, sentAt: "2026-11-01T09:00:01.000Z" });
  expect((await store.claimLtiScores(Date.now() + 10_000, 10, 1_000)).map((r) => r.id).sort()).toEqual(["a4", "b1"]);
}
