/**
 * The launch attempts' Redis fallback, with affinity: an attempt lives in the store that
 * holds it until Redis can take it back under the same wait id.
 *
 * The generic fallback (fallback.ts) picks a store per call: Redis while it answers, the
 * in-process store otherwise. For attempts that loses outcomes. An attempt begun in
 * process while Redis was unreachable (at start-up, before the first connection, or in
 * an outage) and completed after Redis came back would have its outcome sent to Redis,
 * which never heard of it: the token the platform issued is dropped and the student is
 * sent back to start, at the cost of a second sign-in call. So the wait ids held in
 * process are remembered (as long as an outcome lives) with their student, and their
 * steps stay in process, except that once Redis answers again each attempt this instance
 * owns goes back into Redis under the same wait id (`adopt`): at once when the connection
 * comes back (running, or with an unclaimed token), else at its next renewal or outcome.
 * The student's refresh, on whichever instance it lands, finds it there. When the student
 * already has another live attempt in Redis, the attempt stays in process to its end.
 *
 * An attempt begun in Redis whose Redis goes away mid-way is adopted into the owner's
 * in-process store (`adopt`, called by the router when its renewal fails): its call goes
 * on, and its outcome is kept here and moved back as above.
 */
import type { FleetConnection } from "./connection.js";
import { withFallback } from "./fallback.js";
import type { AttemptOutcome, AttemptTicket, LaunchAttemptStore } from "./launch-attempts.js";

interface HeldHere {
  until: number;
  examId: string;
  userKey: string;
  /** The owner's lease, when this instance runs the attempt's call. */
  lease?: string | undefined;
  /** Its outcome, once stored here. */
  outcome?: AttemptOutcome;
  /** A token claimed here: nothing left to move. */
  claimed?: boolean;
}

export function attemptsWithFallback(
  shared: LaunchAttemptStore, local: LaunchAttemptStore, connection: FleetConnection, keepMs: number, now: () => number = Date.now,
): LaunchAttemptStore {
  const either = withFallback(shared, local, connection);
  /** Wait ids held in process, with when to forget them; insertion order is age order. */
  const localIds = new Map<string, HeldHere>();
  const isLocal = (waitId: string): boolean => {
    const t = now();
    for (const [id, { until }] of localIds) {
      if (until > t) break;
      localIds.delete(id);
    }
    return localIds.has(waitId);
  };
  const holdHere = (waitId: string, examId: string, userKey: string, lease: string | undefined): void => {
    const known = localIds.get(waitId);
    localIds.delete(waitId); // re-inserted: to the back of the age order
    localIds.set(waitId, { ...known, until: now() + keepMs, examId, userKey, lease: lease ?? known?.lease });
  };
  /** Puts a running attempt held here back into Redis under its wait id and lease; true once Redis holds it. */
  const moveBack = async (waitId: string, lease: string): Promise<boolean> => {
    const held = localIds.get(waitId);
    if (!connection.up || held === undefined) return false;
    const moved = await shared.adopt(waitId, held.examId, held.userKey, lease).catch(() => false);
    if (moved) localIds.delete(waitId);
    return moved;
  };
  /**
   * Redis found again: every attempt this instance owns in process goes back under its wait
   * id at once (running, or holding an unclaimed token), so the students' refreshes find it
   * on any instance. One that cannot (the student began another in Redis, or Redis failed
   * again) stays here; a running one is tried again at its next renewal.
   */
  const moveAllBack = async (): Promise<void> => {
    for (const [waitId, held] of [...localIds]) {
      if (!connection.up) return;
      if (held.lease === undefined || held.claimed || held.outcome?.kind === "failed" || !isLocal(waitId)) continue;
      const moved = await shared.adopt(waitId, held.examId, held.userKey, held.lease).catch(() => false);
      if (!moved) continue;
      if (held.outcome && !(await shared.complete(waitId, held.lease, held.outcome).catch(() => false))) continue;
      localIds.delete(waitId);
    }
  };
  connection.onUp(() => void moveAllBack());

  return {
    get shared() { return connection.up; },
    get backSince() { return connection.backSince; },
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
      holdHere(ticket.waitId, examId, userKey, ticket.lease);
      return ticket;
    },
    async adopt(waitId, examId, userKey, lease) {
      if (connection.up) {
        try {
          return await shared.adopt(waitId, examId, userKey, lease);
        } catch {
          // Redis failed this call: kept in process (below).
        }
      }
      const adopted = await local.adopt(waitId, examId, userKey, lease);
      if (adopted) holdHere(waitId, examId, userKey, lease);
      return adopted;
    },
    async renew(waitId, lease) {
      if (!isLocal(waitId)) return either.renew(waitId, lease);
      if (await moveBack(waitId, lease)) return true;
      return local.renew(waitId, lease);
    },
    async complete(waitId, lease, outcome) {
      if (!isLocal(waitId)) return either.complete(waitId, lease, outcome);
      const held = localIds.get(waitId)!;
      if (await moveBack(waitId, lease)) {
        if (await shared.complete(waitId, lease, outcome).catch(() => false)) return true;
        // Redis failed between the two steps: the outcome stays here, where the attempt also still is.
        localIds.set(waitId, held);
      }
      const stored = await local.complete(waitId, lease, outcome);
      if (stored) held.outcome = outcome;
      return stored;
    },
    view: (waitId, examId, userKey) => (isLocal(waitId) ? local : either).view(waitId, examId, userKey),
    takeOver: (waitId, examId, userKey) => (isLocal(waitId) ? local : either).takeOver(waitId, examId, userKey),
    async claim(waitId, examId, userKey) {
      if (!isLocal(waitId)) return either.claim(waitId, examId, userKey);
      const outcome = await local.claim(waitId, examId, userKey);
      const held = localIds.get(waitId);
      if (held && outcome?.kind === "token") held.claimed = true;
      return outcome;
    },
  };
}
