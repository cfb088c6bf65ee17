/**
 * The PostgreSQL store's gradebook (schema version 10): line items and the score outbox.
 * A claim leases entries with `FOR UPDATE SKIP LOCKED`: instances sharing the database
 * never claim the same entry, and none waits on another's claim.
 */
import type { PostgresPool } from "./postgres-pool.js";
import type { Names } from "./postgres-schema.js";
import {
  checkLtiScoreEntry, ltiScoreColumns, toLtiScoreRecord, type LtiLineItemKey, type LtiScoreRow, type OralStoreLtiGradebook,
} from "./lti-gradebook-types.js";

const ROW = "organization, entry, state, attempts, next_ms, sent_at, last_error";
const ITEM = "organization = $1 AND issuer = $2 AND client_id = $3 AND deployment_id = $4 AND context_id = $5 AND kind = $6 AND exam_id = $7";

function queries(n: Names) {
  return {
    putItem: `INSERT INTO ${n.ltiLineItems} (organization, issuer, client_id, deployment_id, context_id, kind, exam_id, url)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
    getItem: `SELECT url FROM ${n.ltiLineItems} WHERE ${ITEM}`,
    add: `INSERT INTO ${n.ltiScores} (id, organization, kind, exam_id, user_id, issuer, student_id, student_email, entry, next_ms, queued_ms)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
    claim: `UPDATE ${n.ltiScores} SET next_ms = $3 WHERE id IN (
      SELECT s.id FROM ${n.ltiScores} s WHERE s.state = 'pending' AND s.next_ms <= $1
        AND NOT EXISTS (SELECT 1 FROM ${n.ltiScores} p WHERE p.organization = s.organization AND p.kind = s.kind AND p.exam_id = s.exam_id
          AND p.user_id = s.user_id AND p.state = 'pending' AND p.seq < s.seq)
        ORDER BY s.next_ms, s.seq LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING ${ROW}`,
    settle: `UPDATE ${n.ltiScores} SET state = $2, attempts = $3, next_ms = $4, sent_at = $5, last_error = $6 WHERE id = $1`,
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
      const client = await (await ready()).pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        let added = 0;
        const now = Date.now();
        for (const e of entries) {
          const c = ltiScoreColumns(org, e, now);
          added += (await client.query(sql.add, [c.id, c.org, c.kind, c.examId, c.userId, c.issuer, c.studentId, c.studentEmail, c.entry, c.nextMs, c.queuedMs])).rowCount ?? 0;
        }
        await client.query("COMMIT");
        return added;
      } catch (error) {
        await client.query("ROLLBACK").catch((e: Error) => { broken = e; });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async claimLtiScores(now, limit, leaseMs) {
      const rows = (await query(sql.claim, [now, limit, now + leaseMs])).rows as LtiScoreRow[];
      return rows.map(toLtiScoreRecord).sort((a, b) => a.queuedAt.localeCompare(b.queuedAt));
    },
    async settleLtiScore(id, o) {
      await query(sql.settle, [id, o.state, o.attempts, o.nextAtMs, o.sentAt ?? null, o.lastError ?? null]);
    },
    async listLtiScores(org, q) {
      const rows = (await query(sql.list, [org, q.kind, q.examId, q.student ?? null, q.limit])).rows as LtiScoreRow[];
      return rows.map(toLtiScoreRecord);
    },
  };
}
