/**
 * The SQLite store's gradebook (schema version 10): line items and the score outbox.
 * A claim is one write transaction (SQLite has one writer), so two processes sharing
 * the file never claim the same entry.
 */
import type BetterSqlite3 from "better-sqlite3";
import {
  checkLtiScoreEntry, ltiScoreColumns, toLtiScoreRecord, type LtiLineItemKey, type LtiScoreRow, type OralStoreLtiGradebook,
} from "./lti-gradebook-types.js";

const ITEM = "organization = @org AND issuer = @issuer AND client_id = @clientId AND deployment_id = @deploymentId AND context_id = @contextId AND kind = @kind AND exam_id = @examId";
const ROW = "organization, entry, state, attempts, next_ms, sent_at, last_error";

const SQL = {
  putItem: `INSERT INTO lti_line_items (organization, issuer, client_id, deployment_id, context_id, kind, exam_id, url)
    VALUES (@org, @issuer, @clientId, @deploymentId, @contextId, @kind, @examId, @url) ON CONFLICT DO NOTHING`,
  getItem: `SELECT url FROM lti_line_items WHERE ${ITEM}`,
  add: `INSERT INTO lti_scores (id, organization, kind, exam_id, user_id, issuer, student_id, student_email, entry, next_ms, queued_ms)
    VALUES (@id, @org, @kind, @examId, @userId, @issuer, @studentId, @studentEmail, @entry, @nextMs, @queuedMs) ON CONFLICT (id) DO NOTHING`,
  // Due, and no earlier pending entry of the same learner and exam (that one goes first).
  due: `SELECT s.id FROM lti_scores s WHERE s.state = 'pending' AND s.next_ms <= @now
    AND NOT EXISTS (SELECT 1 FROM lti_scores p WHERE p.organization = s.organization AND p.kind = s.kind AND p.exam_id = s.exam_id
      AND p.user_id = s.user_id AND p.state = 'pending' AND p.seq < s.seq)
    ORDER BY s.next_ms, s.seq LIMIT @limit`,
  lease: `UPDATE lti_scores SET next_ms = @until WHERE id = @id RETURNING ${ROW}`,
  settle: "UPDATE lti_scores SET state = @state, attempts = @attempts, next_ms = @nextMs, sent_at = @sentAt, last_error = @lastError WHERE id = @id",
  list: `SELECT ${ROW} FROM lti_scores WHERE organization = @org AND kind = @kind AND exam_id = @examId
    AND (@student IS NULL OR student_id = @student OR student_email = @student) ORDER BY seq DESC LIMIT @limit`,
} as const;

type Statements = Record<keyof typeof SQL, BetterSqlite3.Statement>;
const itemParams = (org: string, k: LtiLineItemKey) => ({ org, issuer: k.issuer, clientId: k.clientId, deploymentId: k.deploymentId, contextId: k.contextId, kind: k.kind, examId: k.examId });

export function sqliteLtiGradebook(ready: () => Promise<{ db: BetterSqlite3.Database }>): OralStoreLtiGradebook {
  const prepared = new WeakMap<BetterSqlite3.Database, { s: Statements; db: BetterSqlite3.Database }>();
  const handle = async () => {
    const { db } = await ready();
    let found = prepared.get(db);
    if (!found) {
      found = { s: Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements, db };
      prepared.set(db, found);
    }
    return found;
  };
  return {
    async putLtiLineItem(org, key, url) {
      const { s } = await handle();
      s.putItem.run({ ...itemParams(org, key), url });
      return (s.getItem.get(itemParams(org, key)) as { url: string }).url;
    },
    async getLtiLineItem(org, key) {
      return ((await handle()).s.getItem.get(itemParams(org, key)) as { url: string } | undefined)?.url;
    },
    async addLtiScores(org, entries) {
      for (const e of entries) checkLtiScoreEntry(org, e);
      const { s, db } = await handle();
      const now = Date.now();
      return db.transaction(() => entries.reduce((n, e) => n + s.add.run(ltiScoreColumns(org, e, now)).changes, 0)).immediate();
    },
    async claimLtiScores(now, limit, leaseMs) {
      const { s, db } = await handle();
      const claim = db.transaction(() => (s.due.all({ now, limit }) as { id: string }[]).map(({ id }) => s.lease.get({ id, until: now + leaseMs }) as LtiScoreRow));
      return claim.immediate().map(toLtiScoreRecord);
    },
    async settleLtiScore(id, o) {
      (await handle()).s.settle.run({ id, state: o.state, attempts: o.attempts, nextMs: o.nextAtMs, sentAt: o.sentAt ?? null, lastError: o.lastError ?? null });
    },
    async listLtiScores(org, q) {
      const rows = (await handle()).s.list.all({ org, kind: q.kind, examId: q.examId, student: q.student ?? null, limit: q.limit }) as LtiScoreRow[];
      return rows.map(toLtiScoreRecord);
    },
  };
}
