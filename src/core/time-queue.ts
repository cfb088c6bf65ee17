/**
 * Timestamps in time order with an advancing head: the window of a sliding-window rate
 * limit. Dropping the entries that left the window is amortised O(1) per entry (the array
 * is compacted now and then, never shifted per item), so a limit of thousands per window
 * costs no more per request than a limit of ten. Used by the emulator's limiter and the
 * client's rate budget.
 */
export class TimeQueue {
  private items: number[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  /** The i-th oldest timestamp (0 = oldest), or undefined. */
  at(i: number): number | undefined {
    return this.items[this.head + i];
  }

  /**
   * Appends a timestamp. Kept sorted even if the clock steps back: the entry then takes
   * the latest time already queued, so it leaves a little later (over-counting), never early.
   */
  push(t: number): void {
    const last = this.items[this.items.length - 1];
    this.items.push(last !== undefined && last > t ? last : t);
  }

  /** Drops the entries at or before `cutoff`; returns how many. */
  dropUpTo(cutoff: number): number {
    const start = this.head;
    while (this.head < this.items.length && (this.items[this.head] as number) <= cutoff) this.head++;
    const dropped = this.head - start;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return dropped;
  }
}
