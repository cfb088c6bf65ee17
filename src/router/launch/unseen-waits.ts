/**
 * Wait ids refreshed on this instance that its store does not know, while the fleet may
 * hold them out of this instance's sight: how long a student's waiting page keeps
 * refreshing to the same wait id (no call, nothing counted) before it starts over.
 *
 * In a Redis outage each instance keeps its attempts in process (the owner of an attempt
 * begun in Redis adopts it, call and wait id), and when Redis is found again each owner
 * puts them back under their wait ids (fleet/attempts-fallback.ts). Meanwhile a refresh
 * that lands on another instance finds nothing; starting over there began one more
 * attempt, and one more sign-in call, on each instance the refreshes landed on (thousands
 * of start-overs in a 5 s outage mid-storm), and the tokens those calls issued used up
 * the student's launch limit: the student met the router's 429. Shown the waiting page
 * again, the student's next refresh reaches the owner, or Redis once the attempt is back.
 *
 * Kept looking: while Redis is unreachable, and for `afterOutageMs` after this instance
 * found it again (the owners may find it a little later and move their attempts back
 * then); each wait id for at most `lookMs` from when this instance first saw it (as long
 * as an owner keeps a call nobody asks about): an attempt nobody holds any more (a
 * token Redis lost in a restart) starts over after that, as always.
 */

/** Wait ids remembered at most (the oldest go first): memory stays bounded whatever ids arrive. */
export const KEPT = 10_000;

export class UnseenWaits {
  /** Wait id → when first seen unknown here; insertion order is age order. */
  private readonly since = new Map<string, number>();

  constructor(private readonly lookMs: number, private readonly afterOutageMs: number) {}

  /**
   * Whether a refresh whose wait id the store does not know should get the waiting page
   * again. `shared`/`backSince`: the store's (undefined in process, where unknown is unknown).
   */
  keepLooking(waitId: string, shared: boolean | undefined, backSince: number | undefined, now = Date.now()): boolean {
    const unsure = shared === false || (shared === true && now - (backSince ?? 0) < this.afterOutageMs);
    if (!unsure) return false;
    const first = this.since.get(waitId);
    if (first !== undefined) return now - first < this.lookMs;
    this.since.set(waitId, now);
    if (this.since.size > KEPT) this.since.delete(this.since.keys().next().value!);
    return true;
  }

  /** Forgets the wait ids past their look (called by the attempts' sweeper). */
  sweep(now = Date.now()): void {
    for (const [waitId, first] of this.since) {
      if (now - first <= this.lookMs) break;
      this.since.delete(waitId);
    }
  }

  clear(): void {
    this.since.clear();
  }
}
