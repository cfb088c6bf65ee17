/**
 * A version-12 score outbox, for the upgrade tests of both SQL stores: version 12 kept a
 * sent entry's note (what the LMS held) in `last_error`, as JSON. Once upgraded (schema
 * version 13) the note is in its own column, whole, and `last_error` holds errors only: a
 * failed or pending entry keeps its error, a sent one has none.
 */
import { expect } from "vitest";
import type { LtiScoreEntry, OralStoreWithLti } from "../../src/store/types.js";

const NOTE = { unchanged: true, handGrade: { scoreGiven: 15, scoreMaximum: 20, comment: "Typed in the gradebook." } };

const row = (id: string, state: string, lastError: string | null) => {
  const entry: LtiScoreEntry = {
    id, key: { issuer: "https://lms.example", clientId: "c-1", deploymentId: "D-1", contextId: "ctx-1", kind: "oral", examId: "exam-1" },
    userId: `u-${id}`, student: { email: `${id}@x.test` }, label: "Oral exam", ags: { lineItem: "https://lms.example/li/1", scope: ["s"] },
    score: { activityProgress: "Completed", gradingProgress: "FullyGraded", timestamp: "2026-11-01T09:00:00.000Z", scoreGiven: 17, scoreMaximum: 20, comment: "c" },
    queuedAt: "2026-11-01T09:00:00.000Z",
  };
  return [id, "north", "oral", "exam-1", entry.userId, "https://lms.example", JSON.stringify(entry), state, 1_000, 1_000, lastError] as const;
};

/** Columns: id, organization, kind, exam_id, user_id, issuer, entry, state, next_ms, queued_ms, last_error. */
export const V12_NOTE_ROWS = [
  row("noted", "sent", JSON.stringify(NOTE)),
  row("plain", "sent", null),
  row("odd", "sent", "not a note"),
  row("refused", "failed", "The LMS refused the score (403)."),
  row("waiting", "pending", "The LMS answered 503."),
];

export async function expectV12NotesMoved(store: OralStoreWithLti): Promise<void> {
  const listed = new Map((await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 })).map((r) => [r.id, r]));
  expect([...listed.keys()].sort()).toEqual(["noted", "odd", "plain", "refused", "waiting"]);
  expect(listed.get("noted")!.note).toEqual(NOTE);
  for (const id of ["noted", "plain", "odd"]) expect(listed.get(id)!.lastError, id).toBeUndefined();
  for (const id of ["plain", "odd", "refused", "waiting"]) expect(listed.get(id)!.note, id).toBeUndefined();
  expect(listed.get("refused")).toMatchObject({ state: "failed", lastError: "The LMS refused the score (403)." });
  expect(listed.get("waiting")).toMatchObject({ state: "pending", lastError: "The LMS answered 503." });
  // The new column is written: a note settled after the upgrade comes back whole.
  await store.settleLtiScore("waiting", { state: "sent", attempts: 2, nextAtMs: 5_000, sentAt: "2026-11-01T09:00:01.000Z", note: { later: { n: 1 } } });
  const after = (await store.listLtiScores("north", { kind: "oral", examId: "exam-1", limit: 10 })).find((r) => r.id === "waiting")!;
  expect(after.note).toEqual({ later: { n: 1 } });
  expect(after.lastError).toBeUndefined();
}
