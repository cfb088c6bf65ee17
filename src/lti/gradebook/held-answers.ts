/**
 * Over-limit answers held back, as nginx's `limit_req` delays excess requests: a return
 * past its address's limit gets its 429 when the address's next token would be there
 * (its `Retry-After`, at most HOLD_MAX_MS), not at once. A script that waits for each
 * answer before sending the next (a reload loop, `for … await fetch`) is then paced to
 * the limit's own rate (about one answer per `refillMs` for each request it keeps in
 * flight), instead of as many as the router can answer. Measured with `node bench/run.js --only returnReplays` (docs/lab/benchmarks.md,
 * idle machine): 8 replays in flight answered at once took ~92 % of the router's core and
 * another school's p95 went from 1.3 to 5 ms; held, the replays came at 95 a second and
 * that p95 did not move (1.0 alone, 0.6 during). A client with more answers outstanding
 * than may be held (or one that never waits) is not paced: see HOLD_PER_KEY.
 *
 * Bounded, so holding cannot be turned against the router: at most HOLD_PER_KEY answers
 * per address and HOLD_TOTAL in all are held (beyond, the 429 goes at once, as before);
 * a held answer whose client left is dropped; `close()` sends every held answer at once.
 * The timers are unref'd: they never keep a process alive.
 */
import type { ServerResponse } from "node:http";

/** The longest an answer is held, whatever the limit's `Retry-After`. */
export const HOLD_MAX_MS = 1_000;
/** Answers held at once for one address (a browser opens at most 6 connections to a host). */
export const HOLD_PER_KEY = 16;
/** Answers held at once in all, over every address. */
export const HOLD_TOTAL = 1_000;

interface Held {
  timer?: NodeJS.Timeout;
  answer: () => void;
}

export class HeldAnswers {
  private readonly byKey = new Map<string, Set<Held>>();
  private total = 0;
  private closed = false;

  /** The bounds: the router uses the defaults above. */
  constructor(private readonly bounds = { maxMs: HOLD_MAX_MS, perKey: HOLD_PER_KEY, total: HOLD_TOTAL }) {}

  /** Answers with `answer` after `ms` (at most `maxMs`), or at once when nothing more may be held. */
  hold(key: string, ms: number, res: ServerResponse, answer: () => void): void {
    const held = this.byKey.get(key) ?? new Set<Held>();
    if (this.closed || ms <= 0 || held.size >= this.bounds.perKey || this.total >= this.bounds.total) return answer();
    const entry: Held = {
      answer: () => {
        release();
        answer();
      },
    };
    const release = () => {
      clearTimeout(entry.timer);
      res.off("close", release);
      if (held.delete(entry)) this.total -= 1;
      if (held.size === 0 && this.byKey.get(key) === held) this.byKey.delete(key);
    };
    // The client left (or the answer went): nothing to send, and the place is free again.
    res.once("close", release);
    entry.timer = setTimeout(entry.answer, Math.min(ms, this.bounds.maxMs));
    entry.timer.unref();
    held.add(entry);
    this.total += 1;
    this.byKey.set(key, held);
  }

  /** Sends every held answer now; later ones go at once. */
  close(): void {
    this.closed = true;
    for (const held of [...this.byKey.values()]) for (const entry of [...held]) entry.answer();
  }
}
