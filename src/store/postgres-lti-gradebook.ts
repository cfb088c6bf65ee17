/**
 * The PostgreSQL store's gradebook (schema versions 10, 11 and 13): line items and the score
 * outbox. A claim leases entries with `FOR UPDATE SKIP LOCKED`: instances sharing the
 * database never claim the same entry, and none waits on another's claim. Only a
 * learner's head (their first pending entry) is claimable, read from a partial index of
 * heads; the writes that move a learner's head take a lock on that learner (an advisory
 * transaction lock), so two instances never make two heads.
 */
import type { PostgresPool } from "./postgres-pool.js";
import { transaction, type Names } from "./postgres-schema.js";
import {
  checkLtiScoreEntry, ltiNoteColumn, ltiScoreColumns, toLtiScoreRecord, type LtiLineItemKey, type LtiScoreRow, type OralStoreLtiGradebook,
} from "./lti-gradebook-types.js";

const ROW = "organization, entry, state, attempts, next_ms, sent_at, last_error, note";
const LEARNER = "organization = $1 AND kind = $2 AND exam_id = $3 AND user_id = $4";
const ITEM = "organization = $1 AND issuer = $2 AND client_id = $3 AND deployment_id = $4 AND context_id = $5 AND kind = $6 AND exam_id = $7";

function queries(n: Names) {
  return {
    putItem: `INSERT INTO ${n.ltiLineItems} (organization, issuer, client_id, deployment_id, context_id, kind, exam_id, url)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
    getItem: `SELECT url FROM ${n.ltiLineItems} WHERE ${ITEM}`,
    lock: "SELECT pg_advisory_xact_lock(hashtext('eoa-lti-learner'), hashtext($1))",
    known: `SELECT 1 FROM ${n.ltiScores} WHERE id = $1`,
    supersede: `UPDATE ${n.ltiScores} SET state = 'superseded', next_ms = $6 WHERE ${LEARNER} AND state = 'pending' AND head = 0 AND replace_key = $5`,
    add: `INSERT INTO ${n.ltiScores} (id, organization, kind, exam_id, user_id, issuer, student_id, student_email, entry, next_ms, queued_ms, lane, replace_key, head)
      SELECT $5, $1, $2, $3, $4, $6, $7, $8, $9, $10::bigint, $11::bigint, $12, $13,
        CASE WHEN EXISTS (SELECT 1 FROM ${n.ltiScores} WHERE ${LEARNER} AND state = 'pending') THEN 0 ELSE 1 END ON CONFLICT (id) DO NOTHING`,
    claim: `UPDATE ${n.ltiScores} SET next_ms = $3 WHERE id IN (
      SELECT id FROM ${n.ltiScores} WHERE head = 1 AND next_ms <= $1 AND NOT (lane = ANY($4::text[]))
        ORDER BY next_ms LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING ${ROW}`,
    defer: `UPDATE ${n.ltiScores} SET next_ms = $2 WHERE head = 1 AND next_ms < $2 AND lane = $1`,
    settle: `UPDATE ${n.ltiScores} SET state = $2, attempts = $3, next_ms = $4, sent_at = $5, last_error = $6, note = $7,
      head = CASE WHEN $2 = 'pending' THEN head ELSE 0 END WHERE id = $1 RETURNING organization, kind, exam_id, user_id`,
    learnerOf: `SELECT organization, kind, exam_id, user_id FROM ${n.ltiScores} WHERE id = $1`,
    promote: `UPDATE ${n.ltiScores} SET head = 1 WHERE seq = (SELECT seq FROM ${n.ltiScores} WHERE ${LEARNER} AND state = 'pending' ORDER BY seq LIMIT 1)
      AND NOT EXISTS (SELECT 1 FROM ${n.ltiScores} WHERE ${LEARNER} AND state = 'pending' AND head = 1)`,
    purge: `DELETE FROM ${n.ltiScores} WHERE id IN (SELECT id FROM ${n.ltiScores} WHERE state IN ('sent', 'failed', 'superseded') AND next_ms < $1 LIMIT $2)`,
    list: `SELECT ${ROW} FROM ${n.ltiScores} WHERE organization = $1 AND kind = $2 AND exam_id = $3
      AND ($4::text IS NULL OR student_id = $4 OR student_email = $4) ORDER BY seq DESC LIMIT $5`,
  };
}

const itemValues = (org: string, k: LtiLineItemKey) => [org, k.issuer, k.clientId, k.deploymentId, k.contextId, k.kind, k.examId];

export function postgresLtiGradebook(n: Names, ready: () => Promise<{ pool: PostgresPool }>): OralStoreLtiGradebook {
  const sql = queries(n);
  const query = async (text: string, values: unknown[]) => (await (await ready()).pool.query(text, values));
  return {
    async putLtiLineItem(org, key, url) {
      await query(sql.putItem, [...itemValues(org, key), url]);
      return ((await query(sql.getItem, itemValues(org, key))).rows[0] as { url: string }).url;
    },
    async getLtiLineItem(org, key) {
      return ((await query(sql.getItem, itemValues(org, key))).rows[0] as { url: string } | undefined)?.url;
    },
    async addLtiScores(org, entries) {
      for (const e of entries) checkLtiScoreEntry(org, e);
      if (entries.length === 0) return 0;
      let added = 0;
      await transaction((await ready()).pool, async (client) => {
        const now = Date.now();
        for (const e of entries) {
          const c = ltiScoreColumns(org, e, now);
          const learner = [c.org, c.kind, c.examId, c.userId];
          await client.query(sql.lock, [JSON.stringify(learner)]);
          if ((await client.query(sql.known, [c.id])).rowCount) continue;
          await client.query(sql.supersede, [...learner, c.replaceKey, now]);
          added += (await client.query(sql.add, [...learner, c.id, c.issuer, c.studentId, c.studentEmail, c.entry, c.nextMs, c.queuedMs, c.lane, c.replaceKey])).rowCount ?? 0;
        }
      });
      return added;
    },
    async claimLtiScores(now, limit, leaseMs, skipLanes = []) {
      let rows: LtiScoreRow[] = [];
      // A lease need not wait for the disk: lost in a database crash, the entries are claimed and posted again, as after
      // an instance's crash (the outbox delivers at least once). Waiting for the WAL flush was most of a claim's time.
      await transaction((await ready()).pool, async (client) => {
        await client.query("SET LOCAL synchronous_commit = off");
        rows = (await client.query(sql.claim, [now, limit, now + leaseMs, [...skipLanes]])).rows as LtiScoreRow[];
      });
      return rows.map(toLtiScoreRecord).sort((a, b) => a.queuedAt.localeCompare(b.queuedAt));
    },
    async deferLtiScores(lane, until) {
      return (await query(sql.defer, [lane, until])).rowCount ?? 0;
    },
    async settleLtiScore(id, o) {
      await transaction((await ready()).pool, async (client) => {
        const found = (await client.query(sql.learnerOf, [id])).rows[0] as { organization: string; kind: string; exam_id: string; user_id: string } | undefined;
        if (!found) return;
        const learner = [found.organization, found.kind, found.exam_id, found.user_id];
        await client.query(sql.lock, [JSON.stringify(learner)]);
        await client.query(sql.settle, [id, o.state, o.attempts, o.nextAtMs, o.sentAt ?? null, o.lastError ?? null, ltiNoteColumn(o)]);
        if (o.state !== "pending") await client.query(sql.promote, learner);
      });
    },
    async purgeLtiScores(before, limit) {
      return (await query(sql.purge, [before, limit])).rowCount ?? 0;
    },
    async listLtiScores(org, q) {
      const rows = (await query(sql.list, [org, q.kind, q.examId, q.student ?? null, q.limit])).rows as LtiScoreRow[];
      return rows.map(toLtiScoreRecord);
    },
  };
}
