/**
 * A tiny time-based cache for one platform list (`GET /courses`; per course or class in
 * `list-caches.ts`): the vendor advises caching lists instead
 * of polling, and a dashboard that several instructors keep open would otherwise spend
 * the key's rate budget. Writes through the router invalidate it at once; changes made
 * elsewhere show up after `ttlMs`. Concurrent misses share one upstream call.
 */
export class ListCache<T> {
  private value: { at: number; data: T } | undefined;
  private inflight: Promise<T> | undefined;
  private generation = 0;

  constructor(private readonly ttlMs: number) {}

  async get(load: () => Promise<T>): Promise<T> {
    if (this.value && Date.now() - this.value.at < this.ttlMs) return this.value.data;
    if (this.inflight) return this.inflight;
    const generation = this.generation;
    this.inflight = load()
      .then((data) => {
        // A write during the load makes its result stale: hand it out, do not keep it.
        if (this.ttlMs > 0 && generation === this.generation) this.value = { at: Date.now(), data };
        return data;
      })
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  invalidate(): void {
    this.generation += 1;
    this.value = undefined;
    this.inflight = undefined;
  }
}
