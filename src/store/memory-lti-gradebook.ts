/**
 * The memory store's gradebook: line items and the score outbox, as the SQL stores keep
 * them (lost with the process). Each learner's pending entries are a queue; a claim looks
 * only at the queues' heads, never at the scores already sent.
 */
import {
  checkLtiScoreEntry, ltiLaneOf, ltiReplaceKeyOf, type LtiLineItemKey, type LtiScoreRecord, type OralStoreLtiGradebook,
} from "./lti-gradebook-types.js";

const itemKey = (org: string, k: LtiLineItemKey) => JSON.stringify([org, k.issuer, k.clientId, k.deploymentId, k.contextId, k.kind, k.examId]);
const learnerKey = (r: LtiScoreRecord) => JSON.stringify([r.org, r.key.kind, r.key.examId, r.userId]);

export function memoryLtiGradebook(ready: () => Promise<unknown>): OralStoreLtiGradebook {
  const items = new Map<string, string>();
  /** In queue order (a Map keeps insertion order). */
  const scores = new Map<string, LtiScoreRecord>();
  /** Each learner's pending entries, in queue order: the first is their head. */
  const queues = new Map<string, string[]>();
  /** The heads: the only claimable entries. */
  const heads = new Set<string>();
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
        const r: LtiScoreRecord = { ...structuredClone(e), org, state: "pending", attempts: 0, nextAtMs: now };
        const learner = learnerKey(r);
        const queue = queues.get(learner) ?? [];
        // The waiting entries of the same status give way (the head may be in flight: it stays).
        for (const id of queue.slice(1)) {
          const older = scores.get(id)!;
          if (ltiReplaceKeyOf(older) !== ltiReplaceKeyOf(r)) continue;
          Object.assign(older, { state: "superseded", nextAtMs: now });
          queue.splice(queue.indexOf(id), 1);
        }
        queue.push(r.id);
        queues.set(learner, queue);
        if (queue.length === 1) heads.add(r.id);
        scores.set(e.id, r);
        added += 1;
      }
      return added;
    },
    async claimLtiScores(now, limit, leaseMs, skipLanes = []) {
      await ready();
      const skip = new Set(skipLanes);
      const claimed: LtiScoreRecord[] = [];
      for (const id of heads) {
        const r = scores.get(id)!;
        if (r.nextAtMs <= now && !skip.has(ltiLaneOf(r))) claimed.push(r);
      }
      claimed.sort((a, b) => a.nextAtMs - b.nextAtMs);
      return claimed.slice(0, limit).map((r) => {
        r.nextAtMs = now + leaseMs;
        return copy(r);
      });
    },
    async deferLtiScores(lane, until) {
      await ready();
      let moved = 0;
      for (const id of heads) {
        const r = scores.get(id)!;
        if (r.nextAtMs >= until || ltiLaneOf(r) !== lane) continue;
        r.nextAtMs = until;
        moved += 1;
      }
      return moved;
    },
    async settleLtiScore(id, o) {
      await ready();
      const r = scores.get(id);
      if (!r) return;
      Object.assign(r, { state: o.state, attempts: o.attempts, nextAtMs: o.nextAtMs });
      if (o.sentAt) r.sentAt = o.sentAt; else delete r.sentAt;
      if (o.lastError) r.lastError = o.lastError; else delete r.lastError;
      if (o.note) r.note = structuredClone(o.note); else delete r.note;
      if (o.state === "pending") return;
      const learner = learnerKey(r);
      const queue = queues.get(learner) ?? [];
      const at = queue.indexOf(id);
      if (at >= 0) queue.splice(at, 1);
      heads.delete(id);
      if (queue.length === 0) queues.delete(learner);
      else heads.add(queue[0]!);
    },
    async purgeLtiScores(beforeMs, limit) {
      await ready();
      let purged = 0;
      for (const [id, r] of scores) {
        if (purged >= limit) break;
        if (r.state === "pending" || r.nextAtMs >= beforeMs) continue;
        scores.delete(id);
        purged += 1;
      }
      return purged;
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
