/**
 * Counts of recent events that every instance adds to and any instance reads: the
 * platform's 429s and errors the live view shows for the last five minutes, fleet-wide.
 * Counted in 10-second buckets, so "the last five minutes" is the last 30 buckets plus
 * the current one (5:00 to 5:10). Nothing lives longer than `RECENT_KEEP_MS`.
 */

/** The width of one bucket, ms. */
export const RECENT_BUCKET_MS = 10_000;
/** How long a bucket is kept, ms: past any window a reader asks for. */
export const RECENT_KEEP_MS = 11 * 60_000;

export interface RecentCounts {
  /** Adds `n` (default 1) to `name` now. */
  add(name: string, n?: number): Promise<void>;
  /** `name`'s count over the last `windowMs` (whole buckets, the current one included). */
  sum(name: string, windowMs: number): Promise<number>;
}

/** The buckets `windowMs` back from `now` covers, oldest first. */
export function bucketsOf(now: number, windowMs: number): number[] {
  const current = Math.floor(now / RECENT_BUCKET_MS);
  const back = Math.ceil(Math.min(windowMs, RECENT_KEEP_MS) / RECENT_BUCKET_MS);
  return Array.from({ length: back + 1 }, (_, i) => current - back + i);
}

export function inProcessRecentCounts(now: () => number = Date.now): RecentCounts {
  const counts = new Map<string, Map<number, number>>();
  const prune = (at: number) => {
    const oldest = Math.floor((at - RECENT_KEEP_MS) / RECENT_BUCKET_MS);
    for (const [name, buckets] of counts) {
      for (const bucket of buckets.keys()) if (bucket < oldest) buckets.delete(bucket);
      if (buckets.size === 0) counts.delete(name);
    }
  };
  return {
    async add(name, n = 1) {
      const at = now();
      prune(at);
      const bucket = Math.floor(at / RECENT_BUCKET_MS);
      const buckets = counts.get(name) ?? counts.set(name, new Map()).get(name)!;
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + n);
    },
    async sum(name, windowMs) {
      const buckets = counts.get(name);
      if (!buckets) return 0;
      return bucketsOf(now(), windowMs).reduce((total, bucket) => total + (buckets.get(bucket) ?? 0), 0);
    },
  };
}
