/**
 * The LMSs' key sets: one `createRemoteJWKSet` per URL, made on first use and kept, so a
 * key set is fetched once and then served from cache (`cacheMaxAge`), refetched when a
 * token names a `kid` it does not hold (an LMS rotating its keys), at most once per
 * `cooldownDuration`, so a stream of made-up kids cannot make us hammer the LMS.
 *
 * An LMS may also replace its key under the **same** `kid` (issue 27.5): the cached key
 * then fails every signature until the cache ages out (10 minutes). So the resolver handed
 * to `jwtVerify` checks the signature with the cached key itself, and when it fails,
 * refetches the set once and answers the key the fresh set holds (jwtVerify then checks
 * the signature again: a forged token still fails, as `signature`). The refetch is
 * allowed only outside the cooldown: not within `cooldownMs` of the set's last successful
 * fetch (jose's `coolingDown`) nor of the last forced attempt (a failing LMS is not
 * retried per token), and concurrent failures share one fetch (jose's `reload`). So 100
 * forged tokens cost at most one fetch per cooldown.
 *
 * Fleet-safe without shared state: each instance refetches at most once per cooldown,
 * so a fleet of N instances sends an LMS at most N fetches per cooldown (N/30 per second
 * with the default 30 s), whatever the forged traffic; the LMS serves its key set to
 * every tool it has, and expects this kind of load. A shared Redis cooldown would save a
 * few fetches and add a network round trip to every refused launch.
 */
import { createRemoteJWKSet, errors, flattenedVerify, type CryptoKey, type FlattenedJWSInput, type JWSHeaderParameters } from "jose";

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/** What `jwtVerify` is given: the key of the token's `kid`, refetched once when the cached one fails the signature. */
export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

export interface RemoteKeySetOptions {
  /** How long a fetched set is trusted before it is fetched again, ms. Default 600 000. */
  cacheMaxAgeMs?: number;
  /** Least time between two fetches of one set (a refetch on an unknown kid or a failed signature included), ms. Default 30 000. */
  cooldownMs?: number;
  /** Fetch timeout, ms. Default 5 000. */
  timeoutMs?: number;
}

interface Entry {
  set: KeySet;
  resolver: KeyResolver;
  /** When a signature failure last forced a refetch (ms since epoch). */
  forcedAt: number;
  /** When an unknown kid last forced a refetch (ms since epoch). */
  unknownKidAt: number;
}

export class RemoteKeySets {
  private readonly sets = new Map<string, Entry>();
  private readonly cooldownMs: number;

  constructor(private readonly options: RemoteKeySetOptions = {}) {
    this.cooldownMs = options.cooldownMs ?? 30_000;
  }

  of(url: string): KeyResolver {
    let entry = this.sets.get(url);
    if (!entry) {
      const set = createRemoteJWKSet(new URL(url), {
        cacheMaxAge: this.options.cacheMaxAgeMs ?? 600_000,
        cooldownDuration: this.cooldownMs,
        timeoutDuration: this.options.timeoutMs ?? 5_000,
      });
      const made: Entry = { set, forcedAt: Number.NEGATIVE_INFINITY, unknownKidAt: Number.NEGATIVE_INFINITY, resolver: (header, token) => this.resolve(made, header, token) };
      this.sets.set(url, made);
      entry = made;
    }
    return entry.resolver;
  }

  private async resolve(entry: Entry, header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const key = await this.keyOf(entry, header, token);
    if (await signatureHolds(token, key)) return key;
    // The cached key fails: the LMS may have replaced it under the same kid. One refetch per cooldown.
    // A refetch already in flight (another launch's): wait for it rather than fail.
    if (entry.set.reloading) {
      await entry.set.reload();
      return entry.set(header, token);
    }
    const now = Date.now();
    if (entry.set.coolingDown || now - entry.forcedAt < this.cooldownMs) return key;
    entry.forcedAt = now;
    await entry.set.reload();
    return entry.set(header, token);
  }

  /** The key of the token's kid; an unknown kid inside jose's cooldown forces one refetch per cooldown (see the file comment). */
  private async keyOf(entry: Entry, header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    // Outside its cooldown, jose refetches an unknown kid itself: no second fetch then.
    const cooling = entry.set.coolingDown;
    try {
      return await entry.set(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || !cooling) throw error;
      if (entry.set.reloading) {
        await entry.set.reload();
        return entry.set(header, token);
      }
      const now = Date.now();
      if (now - entry.unknownKidAt < this.cooldownMs) throw error;
      entry.unknownKidAt = now;
      await entry.set.reload();
      return entry.set(header, token);
    }
  }
}

/** False only for a signature that does not verify; anything else is jwtVerify's to report. */
async function signatureHolds(token: FlattenedJWSInput, key: CryptoKey): Promise<boolean> {
  try {
    await flattenedVerify(token, key);
    return true;
  } catch (error) {
    return !(error instanceof errors.JWSSignatureVerificationFailed);
  }
}
