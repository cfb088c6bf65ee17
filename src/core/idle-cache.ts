/**
 * A bounded map whose entries leave when unused for `idleMs`, or (least recently used
 * first) when it is full. What a router keeps per organization lives in one of these, so
 * a thousand organizations touched once do not hold a thousand clients forever. `onEvict`
 * runs for every entry that leaves (to close a client's sockets); a sweep every
 * `idleMs / 2` (unref'd: it never keeps a process alive) drops idle entries even when
 * nobody asks for them.
 */
/** Why an entry left: it can carry no work (`idle`), or it may still (`full`, `removed`). */
export type EvictReason = "idle" | "full" | "removed";

export interface IdleCacheOptions<V> {
  /** Most entries kept. */
  max: number;
  /** An entry unused this long leaves, ms. */
  idleMs: number;
  /** Runs for every entry that leaves, with why: unused past `idleMs`, pushed out while full, or `delete`/`clear`. Default: nothing. */
  onEvict?: (value: V, reason: EvictReason) => void;
  /** True for a value still at work although nobody asked for it (a running plan): the idle sweep keeps it. Default: none. */
  busy?: (value: V) => boolean;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

export class IdleCache<K, V> {
  /** Map order is use order: the least recently used entry is first. */
  private readonly entries = new Map<K, { value: V; usedAt: number }>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: IdleCacheOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value for `key`, made by `make` when absent; either way it counts as used now. */
  get(key: K, make: () => V): V {
    const now = this.now();
    const found = this.entries.get(key);
    if (found && this.alive(found, now)) {
      this.entries.delete(key);
      found.usedAt = now;
      this.entries.set(key, found);
      return found.value;
    }
    if (found) this.drop(key, "idle");
    const value = make();
    if (this.entries.size >= this.options.max) this.drop(this.entries.keys().next().value as K, "full");
    this.entries.set(key, { value, usedAt: now });
    this.startSweeper();
    return value;
  }

  /** The value for `key` if present and not idle, counted as used now (as `get`); undefined, without making one, otherwise. */
  touch(key: K): V | undefined {
    const found = this.entries.get(key);
    if (!found) return undefined;
    const now = this.now();
    if (!this.alive(found, now)) return undefined;
    this.entries.delete(key);
    found.usedAt = now;
    this.entries.set(key, found);
    return found.value;
  }

  /** The value for `key` if present and not idle, without making one. */
  peek(key: K): V | undefined {
    const found = this.entries.get(key);
    return found && this.alive(found, this.now()) ? found.value : undefined;
  }

  delete(key: K): void {
    this.drop(key, "removed");
  }

  private drop(key: K, reason: EvictReason): void {
    const found = this.entries.get(key);
    if (!found) return;
    this.entries.delete(key);
    this.options.onEvict?.(found.value, reason);
  }

  /** Drops every entry unused for `idleMs` (the sweep calls it; tests on an injected clock too). */
  sweep(): void {
    const now = this.now();
    const kept: [K, { value: V; usedAt: number }][] = [];
    for (const [key, entry] of this.entries) {
      if (now - entry.usedAt <= this.options.idleMs) break; // use order: the rest are fresher
      if (this.options.busy?.(entry.value)) kept.push([key, entry]);
      else this.drop(key, "idle");
    }
    // A busy entry counts as used now: it moves to the fresh end, keeping the use order.
    for (const [key, entry] of kept) {
      this.entries.delete(key);
      entry.usedAt = now;
      this.entries.set(key, entry);
    }
    if (this.entries.size === 0) this.stopSweeper();
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.delete(key);
    this.stopSweeper();
  }

  private alive(entry: { value: V; usedAt: number }, now: number): boolean {
    return now - entry.usedAt <= this.options.idleMs || this.options.busy?.(entry.value) === true;
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.floor(this.options.idleMs / 2)));
    this.sweeper.unref();
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
