/**
 * One `ListCache` per list (a course's classes, a class's exams of one kind). Writes
 * through the router invalidate the whole group: they are rare next to reads, and an
 * update may move a record from one list to another.
 */
import { ListCache } from "./list-cache.js";

/** Enough for every class an organization has open at once; the oldest list goes first beyond it. */
const MAX_LISTS = 1_000;

export class ListCaches<T> {
  private readonly caches = new Map<string, ListCache<T>>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    let cache = this.caches.get(key);
    if (!cache) {
      if (this.caches.size >= MAX_LISTS) this.caches.delete(this.caches.keys().next().value as string);
      cache = new ListCache<T>(this.ttlMs);
      this.caches.set(key, cache);
    }
    return cache.get(load);
  }

  invalidate(): void {
    for (const cache of this.caches.values()) cache.invalidate();
    this.caches.clear();
  }
}
