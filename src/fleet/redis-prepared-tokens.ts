/**
 * Prepared tokens in Redis: one key per (exam, student), named by a keyed hash (no student
 * identity in key names), value AES-256-GCM sealed and bound to its key, `PX` = the
 * token's remaining usable life, handed out with GETDEL (atomic read + delete: Redis ≥ 6.2).
 * The sealed value names the class the token was issued for: `take` hands it out only
 * for that class.
 *
 * `has` opens the value too: a value that does not open (written without the secret) is
 * no token waiting, so a new plan leader issues one instead of trusting it.
 *
 * Across a secret switch a student's key name changes: lookups (`take`, `has`, `discard`)
 * read the names under every listed secret, so a token put before the switch is still
 * handed out, once; `put` writes under the first secret's name only.
 */
import type { Cipher } from "./cipher.js";
import type { FleetConnection } from "./connection.js";
import type { PreparedTokenStore } from "./prepared-tokens.js";
import type { Refusals } from "./refused.js";
import { preparedToken, type PreparedToken } from "./secret-token.js";

/** What a sealed prepared token holds: the token, until when it may be handed out (ms), its class. */
interface SealedToken {
  t: string;
  u: number;
  c: string;
}

export function redisPreparedTokens(connection: FleetConnection, cipher: Cipher, refused: Refusals, prefix: string): PreparedTokenStore {
  const keyOf = (examId: string, userKey: string): string => `${prefix}:pt:${cipher.name(`${examId}\u0000${userKey}`)}`;
  const keysOf = (examId: string, userKey: string): string[] => cipher.names(`${examId}\u0000${userKey}`).map((name) => `${prefix}:pt:${name}`);
  /** The sealed token if it opens and is still usable. */
  const usable = (key: string, sealed: string): SealedToken | undefined => {
    const plain = cipher.open(sealed, key);
    if (plain === undefined) return void refused.report("prepared token", key, sealed);
    const token = JSON.parse(plain) as SealedToken;
    return token.u > Date.now() ? token : undefined;
  };
  const unseal = (key: string, sealed: string, classId: string): PreparedToken | undefined => {
    const token = usable(key, sealed);
    if (token === undefined) return undefined;
    if (token.c !== classId) return void refused.report("prepared token", key, sealed, "it was issued for another class than the launched exam's");
    return preparedToken(token.t, token.u);
  };
  return {
    async put(examId, userKey, token, usableUntil, classId) {
      const ttl = Math.floor(usableUntil - Date.now());
      if (ttl <= 0) return;
      const key = keyOf(examId, userKey);
      const value: SealedToken = { t: token, u: usableUntil, c: classId };
      await connection.run((redis) => redis.set(key, cipher.seal(JSON.stringify(value), key), "PX", ttl));
    },
    async take(examId, userKey, classId) {
      const keys = keysOf(examId, userKey);
      const values = keys.length === 1
        ? [await connection.run((redis) => redis.getdel(keys[0]!))]
        : ((await connection.run((redis) => keys.reduce((multi, key) => multi.getdel(key), redis.multi()).exec())) ?? []).map(([, value]) => value as string | null);
      let taken: PreparedToken | undefined;
      values.forEach((sealed, i) => {
        if (sealed && taken === undefined) taken = unseal(keys[i]!, sealed, classId);
      });
      return taken;
    },
    async has(examId, userKey) {
      const keys = keysOf(examId, userKey);
      const values = await connection.run((redis) => redis.mget(...keys));
      return values.some((sealed, i) => sealed !== null && usable(keys[i]!, sealed) !== undefined);
    },
    async discard(examId, userKey) {
      await connection.run((redis) => redis.del(...keysOf(examId, userKey)));
    },
  };
}
