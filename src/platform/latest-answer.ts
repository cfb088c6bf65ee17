/**
 * The Remaining of the latest-sent request answered so far, for the in-process rate
 * budget (the same rule is OBSERVE in src/fleet/rate-budget-scripts.ts).
 *
 * A request sent before the latest-sent one that comes back after it, with none of ours
 * in flight, is the last answer of a burst. Its Remaining less every request sent after
 * it counts again those answered first (a platform that counts at the answer, as the
 * emulator does, already counted them), and slots stayed free until the next window. So
 * such an answer keeps at least the lower of its own Remaining (right if the platform
 * counts at the answer) and the latest-sent request's less what was sent after it (right
 * if it counts on arrival): safe either way, and never lower than before.
 */
export class LatestAnswer {
  private latest: { sentAt: number; remaining: number; resetAt: number } | undefined;

  /**
   * The Remaining to keep for an answer: `estimate` (its usable Remaining less the
   * requests sent after it) unless the rule above applies. `sentAt` is the request's send
   * number, `totalSent` the budget's, `quiet` whether none of ours is in flight and the
   * window is not taken to be full.
   */
  estimate(usable: number, estimate: number, sentAt: number | undefined, totalSent: number, quiet: boolean, now: number, windowMs: number): number {
    if (sentAt === undefined) return estimate;
    const latest = this.latest;
    if (!latest || now >= latest.resetAt || sentAt >= latest.sentAt) {
      this.latest = { sentAt, remaining: usable, resetAt: now + windowMs };
      return estimate;
    }
    if (!quiet) return estimate;
    return Math.max(estimate, Math.min(usable, latest.remaining - (totalSent - latest.sentAt)));
  }
}
