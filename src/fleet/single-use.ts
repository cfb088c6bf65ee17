/**
 * Single-use values: short records any instance may put and exactly one request may take
 * (an LTI login's state and nonce, an LTI launch's "open the exam" link). Each expires on
 * its own; `take` is atomic, so two instances racing for one value cannot both get it.
 *
 * `inProcessSingleUse()` is the zero-configuration default; `redisSingleUse`
 * (redis-single-use.ts) shares them across a fleet, sealed at rest.
 */

export interface SingleUseStore {
  /** Keeps `value` under `key` for `ttlMs`, replacing any earlier value. */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value, removed: at most once fleet-wide; undefined once taken or expired. */
  take(key: string): Promise<string | undefined>;
  /** The value, left in place (undefined once taken or expired). */
  peek(key: string): Promise<string | undefined>;
}

/** Expired entries are swept whenever this many puts happened since the last sweep. */
const SWEEP_EVERY = 256;

export function inProcessSingleUse(now: () => number = Date.now): SingleUseStore {
  const values = new Map<string, { value: string; until: number }>();
  let puts = 0;
  const live = (key: string) => {
    const entry = values.get(key);
    if (entry && entry.until <= now()) values.delete(key);
    return entry && entry.until > now() ? entry.value : undefined;
  };
  return {
    async put(key, value, ttlMs) {
      if (++puts % SWEEP_EVERY === 0) for (const k of [...values.keys()]) live(k);
      if (ttlMs > 0) values.set(key, { value, until: now() + ttlMs });
    },
    async take(key) {
      const value = live(key);
      values.delete(key);
      return value;
    },
    async peek(key) {
      return live(key);
    },
  };
}
