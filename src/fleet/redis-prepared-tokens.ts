/**
 * Prepared tokens in Redis: one key per (exam, student), named by a keyed hash (no student
 * identity in key names), value AES-256-GCM sealed and bound to its key, `PX` = the
 * token's remaining usable life, handed out with GETDEL (atomic read + delete: Redis ≥ 6.2).
 */
import type { Cipher } from "./cipher.js";
import type { FleetConnection } from "./connection.js";
import type { PreparedTokenStore } from "./prepared-tokens.js";
import { preparedToken } from "./secret-token.js";

export function redisPreparedTokens(connection: FleetConnection, cipher: Cipher, prefix: string): PreparedTokenStore {
  const keyOf = (examId: string, userKey: string): string => `${prefix}:pt:${cipher.name(`${examId}\u0000${userKey}`)}`;
  const unseal = (key: string, sealed: string | null) => {
    if (!sealed) return undefined;
    const plain = cipher.open(sealed, key);
    if (!plain) return undefined;
    const { t, u } = JSON.parse(plain) as { t: string; u: number };
    return u > Date.now() ? preparedToken(t, u) : undefined;
  };
  return {
    async put(examId, userKey, token, usableUntil) {
      const ttl = Math.floor(usableUntil - Date.now());
      if (ttl <= 0) return;
      const key = keyOf(examId, userKey);
      await connection.run((redis) => redis.set(key, cipher.seal(JSON.stringify({ t: token, u: usableUntil }), key), "PX", ttl));
    },
    async take(examId, userKey) {
      const key = keyOf(examId, userKey);
      return unseal(key, await connection.run((redis) => redis.getdel(key)));
    },
    async has(examId, userKey) {
      const key = keyOf(examId, userKey);
      return (await connection.run((redis) => redis.exists(key))) === 1;
    },
    async discard(examId, userKey) {
      const key = keyOf(examId, userKey);
      await connection.run((redis) => redis.del(key));
    },
  };
}
