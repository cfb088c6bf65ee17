/** The memory store's gradebook: line items and the score outbox, as the SQL stores keep them (lost with the process). */
import {
  checkLtiScoreEntry, type LtiLineItemKey, type LtiScoreRecord, type OralStoreLtiGradebook,
} from "./lti-gradebook-types.js";

const itemKey = (org: string, k: LtiLineItemKey) => JSON.stringify([org, k.issuer, k.clientId, k.deploymentId, k.contextId, k.kind, k.examId]);
const learnerKey = (r: LtiScoreRecord) => JSON.stringify([r.org, r.key.kind, r.key.examId, r.userId]);

export function memoryLtiGradebook(ready: () => Promise<unknown>): OralStoreLtiGradebook {
  const items = new Map<string, string>();
  /** In queue order (a Map keeps insertion order). */
  const scores = new Map<string, LtiScoreRecord>();
  const copy = (r: LtiScoreRecord): LtiScoreRecord => structuredClone(r);
  return {
    async putLtiLineItem(org, key, url) {
      await ready();
      const k = itemKey(org, key);
      if (!items.has(k)) items.set(k, url);
      return items.get(k)!;
    },
    async getLtiLineItem(org, key) {
      await ready();
      return items.get(itemKey(org, key));
    },
    async addLtiScores(org, entries) {
      for (const e of entries) checkLtiScoreEntry(org, e);
      await ready();
      const now = Date.now();
      let added = 0;
      for (const e of entries) {
        if (scores.has(e.id)) continue;
        scores.set(e.id, { ...structuredClone(e), org, state: "pending", attempts: 0, nextAtMs: now });
        added += 1;
      }
      return added;
    },
    async claimLtiScores(now, limit, leaseMs) {
      await ready();
      const waiting = new Set<string>();
      const claimed: LtiScoreRecord[] = [];
      for (const r of scores.values()) {
        if (r.state !== "pending") continue;
        const learner = learnerKey(r);
        if (waiting.has(learner)) continue;
        waiting.add(learner);
        if (r.nextAtMs <= now) claimed.push(r);
      }
      claimed.sort((a, b) => a.nextAtMs - b.nextAtMs);
      return claimed.slice(0, limit).map((r) => {
        r.nextAtMs = now + leaseMs;
        return copy(r);
      });
    },
    async settleLtiScore(id, o) {
      await ready();
      const r = scores.get(id);
      if (!r) return;
      Object.assign(r, { state: o.state, attempts: o.attempts, nextAtMs: o.nextAtMs });
      if (o.sentAt) r.sentAt = o.sentAt; else delete r.sentAt;
      if (o.lastError) r.lastError = o.lastError; else delete r.lastError;
    },
    async listLtiScores(org, q) {
      await ready();
      return [...scores.values()].reverse()
        .filter((r) => r.org === org && r.key.kind === q.kind && r.key.examId === q.examId
          && (q.student === undefined || r.student.orgInternalId === q.student || r.student.email === q.student))
        .slice(0, q.limit).map(copy);
    },
  };
}
