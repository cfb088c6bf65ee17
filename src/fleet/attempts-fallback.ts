/**
 * The launch attempts' Redis fallback, with affinity: an attempt lives in the store that
 * began it, for its whole life.
 *
 * The generic fallback (fallback.ts) picks a store per call: Redis while it answers, the
 * in-process store otherwise. For attempts that loses outcomes. An attempt begun in
 * process while Redis was unreachable (at start-up, before the first connection, or in
 * an outage) and completed after Redis came back would have its outcome sent to Redis,
 * which never heard of it: the token the platform issued is dropped and the student is
 * sent back to start, at the cost of a second sign-in call. So the wait ids this instance
 * began in process are remembered (as long as an outcome lives), and every later step of
 * those attempts (renew, complete, view, take over, claim) stays in process.
 *
 * An attempt begun in Redis whose Redis goes away mid-way cannot be finished there: its
 * steps then go to the in-process store, which does not know it, and the student's next
 * request starts a new attempt (one more sign-in call), as docs/fleet.md says.
 */
import type { FleetConnection } from "./connection.js";
import { withFallback } from "./fallback.js";
import type { AttemptTicket, LaunchAttemptStore } from "./launch-attempts.js";

export function attemptsWithFallback(
  shared: LaunchAttemptStore, local: LaunchAttemptStore, connection: FleetConnection, keepMs: number, now: () => number = Date.now,
): LaunchAttemptStore {
  const either = withFallback(shared, local, connection);
  /** Wait ids begun in process, with when to forget them; insertion order is age order. */
  const localIds = new Map<string, number>();
  const isLocal = (waitId: string): boolean => {
    const t = now();
    for (const [id, until] of localIds) {
      if (until > t) break;
      localIds.delete(id);
    }
    return localIds.has(waitId);
  };

  return {
    get shared() { return connection.up; },
    async begin(examId, userKey) {
      let ticket: AttemptTicket | undefined;
      if (connection.up) {
        try {
          ticket = await shared.begin(examId, userKey);
        } catch {
          // Redis failed this call: the attempt runs in process (below).
        }
      }
      if (ticket !== undefined) return ticket;
      ticket = await local.begin(examId, userKey);
      localIds.delete(ticket.waitId); // re-inserted: to the back of the age order
      localIds.set(ticket.waitId, now() + keepMs);
      return ticket;
    },
    renew: (waitId, lease) => (isLocal(waitId) ? local : either).renew(waitId, lease),
    complete: (waitId, lease, outcome) => (isLocal(waitId) ? local : either).complete(waitId, lease, outcome),
    view: (waitId, examId, userKey) => (isLocal(waitId) ? local : either).view(waitId, examId, userKey),
    takeOver: (waitId, examId, userKey) => (isLocal(waitId) ? local : either).takeOver(waitId, examId, userKey),
    claim: (waitId, examId, userKey) => (isLocal(waitId) ? local : either).claim(waitId, examId, userKey),
  };
}
