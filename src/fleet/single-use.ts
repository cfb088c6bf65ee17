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
  /**
   * Keeps `value` under `key` for `ttlMs` only if no value is live there: true when this
   * call kept it, false when one was. Atomic (fleet-wide in fleet mode): of two racing
   * claims, one wins. A lock with a life of its own (one roster read in flight per exam and
   * course), or a mark that something happened once (a launch's nonce used).
   */
  claim(key: string, value: string, ttlMs: number): Promise<boolean>;
}

/**
 * How many values of one kind (a key's prefix up to its first `:`, e.g. `lti-state`) the
 * in-process store keeps: past it, the least recently used of that kind goes. Per kind, so
 * a flood of one (anonymous logins) never pushes out another (a learner's exam link).
 */
const IN_PROCESS_CAP_PER_KIND = 10_000;

/** Expired values looked at from the oldest end on each put (no full scan, ever). */
const EXPIRED_CHECKED_PER_PUT = 4;

interface Entry { value: string; until: number }

/**
 * In process: one `Map` per kind, in least-recently-used order (a put or a peek moves the
 * key to the end), capped at `capPerKind`. An expired value is dropped when it is read, or
 * when it reaches the oldest end (each put checks a few there): what a kind holds is never
 * more than its cap, whatever the TTLs.
 */
export function inProcessSingleUse(now: () => number = Date.now, capPerKind = IN_PROCESS_CAP_PER_KIND): SingleUseStore {
  const kinds = new Map<string, Map<string, Entry>>();
  const kindOf = (key: string): Map<string, Entry> => {
    const kind = key.slice(0, Math.max(0, key.indexOf(":")));
    let values = kinds.get(kind);
    if (!values) kinds.set(kind, (values = new Map()));
    return values;
  };
  const live = (values: Map<string, Entry>, key: string): Entry | undefined => {
    const entry = values.get(key);
    if (entry && entry.until <= now()) values.delete(key);
    return entry && entry.until > now() ? entry : undefined;
  };
  const put = async (key: string, value: string, ttlMs: number): Promise<void> => {
    const values = kindOf(key);
    values.delete(key);
    let checked = 0;
    for (const [oldest, entry] of values) {
      if (checked++ >= EXPIRED_CHECKED_PER_PUT || entry.until > now()) break;
      values.delete(oldest);
    }
    if (ttlMs <= 0) return;
    while (values.size >= capPerKind) values.delete(values.keys().next().value!);
    values.set(key, { value, until: now() + ttlMs });
  };
  return {
    put,
    async claim(key, value, ttlMs) {
      // One event loop: nothing runs between the look and the put.
      if (ttlMs <= 0 || live(kindOf(key), key)) return false;
      await put(key, value, ttlMs);
      return true;
    },
    async take(key) {
      const values = kindOf(key);
      const entry = live(values, key);
      values.delete(key);
      return entry?.value;
    },
    async peek(key) {
      const values = kindOf(key);
      const entry = live(values, key);
      if (entry) {
        values.delete(key);
        values.set(key, entry);
      }
      return entry?.value;
    },
  };
}
