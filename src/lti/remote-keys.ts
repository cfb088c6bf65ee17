/**
 * The LMSs' key sets: one `createRemoteJWKSet` per URL, made on first use and kept, so a
 * key set is fetched once and then served from cache (`cacheMaxAge`), refetched when a
 * token names a `kid` it does not hold (an LMS rotating its keys), at most once per
 * `cooldownDuration`, so a stream of made-up kids cannot make us hammer the LMS.
 */
import { createRemoteJWKSet } from "jose";

type KeySet = ReturnType<typeof createRemoteJWKSet>;

export interface RemoteKeySetOptions {
  /** How long a fetched set is trusted before it is fetched again, ms. Default 600 000. */
  cacheMaxAgeMs?: number;
  /** Least time between two fetches of one set (a refetch on an unknown kid included), ms. Default 30 000. */
  cooldownMs?: number;
  /** Fetch timeout, ms. Default 5 000. */
  timeoutMs?: number;
}

export class RemoteKeySets {
  private readonly sets = new Map<string, KeySet>();

  constructor(private readonly options: RemoteKeySetOptions = {}) {}

  of(url: string): KeySet {
    let set = this.sets.get(url);
    if (!set) {
      set = createRemoteJWKSet(new URL(url), {
        cacheMaxAge: this.options.cacheMaxAgeMs ?? 600_000,
        cooldownDuration: this.options.cooldownMs ?? 30_000,
        timeoutDuration: this.options.timeoutMs ?? 5_000,
      });
      this.sets.set(url, set);
    }
    return set;
  }
}
