/**
 * The SQLite store's gradebook (schema versions 10, 11 and 13): line items and the score
 * outbox. A claim is one write transaction (SQLite has one writer), so two processes
 * sharing the file never claim the same entry. Only a learner's head (`head = 1`, their
 * first pending entry) is claimable, read from a partial index of heads: a claim's cost
 * does not grow with the sent rows kept, nor with a learner's waiting ones.
 */
import type BetterSqlite3 from "better-sqlite3";
import {
  checkLtiScoreEntry, ltiNoteColumn, ltiScoreColumns, toLtiScoreRecord, type LtiLineItemKey, type LtiScoreRow, type OralStoreLtiGradebook,
} from "./lti-gradebook-types.js";

const ITEM = "organization = @org AND issuer = @issuer AND client_id = @clientId AND deployment_id = @deploymentId AND context_id = @contextId AND kind = @kind AND exam_id = @examId";
const ROW = "organization, entry, state, attempts, next_ms, sent_at, last_error, note";
const LEARNER = "organization = @org AND kind = @kind AND exam_id = @examId AND user_id = @userId";

const SQL = {
  putItem: `INSERT INTO lti_line_items (organization, issuer, client_id, deployment_id, context_id, kind, exam_id, url)
    VALUES (@org, @issuer, @clientId, @deploymentId, @contextId, @kind, @examId, @url) ON CONFLICT DO NOTHING`,
  getItem: `SELECT url FROM lti_line_items WHERE ${ITEM}`,
  known: "SELECT 1 FROM lti_scores WHERE id = @id",
  // A newer entry of the same status replaces the learner's waiting ones (never their head: it may be in flight).
  supersede: `UPDATE lti_scores SET state = 'superseded', next_ms = @nextMs WHERE ${LEARNER} AND state = 'pending' AND head = 0 AND replace_key = @replaceKey`,
  add: `INSERT INTO lti_scores (id, organization, kind, exam_id, user_id, issuer, student_id, student_email, entry, next_ms, queued_ms, lane, replace_key, head)
    SELECT @id, @org, @kind, @examId, @userId, @issuer, @studentId, @studentEmail, @entry, @nextMs, @queuedMs, @lane, @replaceKey,
      NOT EXISTS (SELECT 1 FROM lti_scores WHERE ${LEARNER} AND state = 'pending') WHERE true ON CONFLICT (id) DO NOTHING`,
  due: `SELECT id FROM lti_scores WHERE head = 1 AND next_ms <= @now AND lane NOT IN (SELECT value FROM json_each(@skip))
    ORDER BY next_ms LIMIT @limit`,
  defer: "UPDATE lti_scores SET next_ms = @until WHERE head = 1 AND next_ms < @until AND lane = @lane",
  lease: `UPDATE lti_scores SET next_ms = @until WHERE id = @id RETURNING ${ROW}`,
  settle: `UPDATE lti_scores SET state = @state, attempts = @attempts, next_ms = @nextMs, sent_at = @sentAt, last_error = @lastError, note = @note,
    head = CASE WHEN @state = 'pending' THEN head ELSE 0 END WHERE id = @id RETURNING organization AS org, kind, exam_id AS examId, user_id AS userId`,
  // The learner's next pending entry becomes their head, unless they have one.
  promote: `UPDATE lti_scores SET head = 1 WHERE seq = (SELECT seq FROM lti_scores WHERE ${LEARNER} AND state = 'pending' ORDER BY seq LIMIT 1)
    AND NOT EXISTS (SELECT 1 FROM lti_scores WHERE ${LEARNER} AND state = 'pending' AND head = 1)`,
  purge: `DELETE FROM lti_scores WHERE seq IN (SELECT seq FROM lti_scores WHERE state IN ('sent', 'failed', 'superseded') AND next_ms < @before LIMIT @limit)`,
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
      return db.transaction(() => entries.reduce((n, e) => {
        const c = ltiScoreColumns(org, e, now);
        if (s.known.get(c)) return n;
        s.supersede.run(c);
        return n + s.add.run(c).changes;
      }, 0)).immediate();
    },
    async claimLtiScores(now, limit, leaseMs, skipLanes = []) {
      const { s, db } = await handle();
      const skip = JSON.stringify(skipLanes);
      const claim = db.transaction(() => (s.due.all({ now, limit, skip }) as { id: string }[]).map(({ id }) => s.lease.get({ id, until: now + leaseMs }) as LtiScoreRow));
      // A lease need not wait for the disk (the event loop waits with it): lost in an OS crash, the entries are claimed and
      // posted again, as after the process's crash (the outbox delivers at least once). The next full commit syncs it anyway.
      const synchronous = db.pragma("synchronous", { simple: true }) as number;
      if (synchronous > 1) db.pragma("synchronous = NORMAL");
      try {
        return claim.immediate().map(toLtiScoreRecord);
      } finally {
        if (synchronous > 1) db.pragma(`synchronous = ${synchronous}`);
      }
    },
    async deferLtiScores(lane, until) {
      return (await handle()).s.defer.run({ lane, until }).changes;
    },
    async settleLtiScore(id, o) {
      const { s, db } = await handle();
      db.transaction(() => {
        const learner = s.settle.get({ id, state: o.state, attempts: o.attempts, nextMs: o.nextAtMs, sentAt: o.sentAt ?? null, lastError: o.lastError ?? null, note: ltiNoteColumn(o) });
        if (learner && o.state !== "pending") s.promote.run(learner);
      }).immediate();
    },
    async purgeLtiScores(before, limit) {
      return (await handle()).s.purge.run({ before, limit }).changes;
    },
    async listLtiScores(org, q) {
      const rows = (await handle()).s.list.all({ org, kind: q.kind, examId: q.examId, student: q.student ?? null, limit: q.limit }) as LtiScoreRow[];
      return rows.map(toLtiScoreRecord);
    },
  };
}
