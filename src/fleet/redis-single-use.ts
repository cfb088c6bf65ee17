/**
 * Single-use values in Redis: one key per value, named by a keyed hash of the caller's key
 * (a state or link id never appears in Redis), the value AES-256-GCM sealed and bound to
 * its Redis key, `PX` = its life, taken with GETDEL (atomic read + delete: Redis ≥ 6.2).
 * A value that does not open (forged, moved, or sealed under a retired secret) is none.
 * `claim` is SET NX under the first secret's name: atomic, one of racing instances wins.
 *
 * Across a secret switch a key's name changes: `take` and `peek` read the names under
 * every listed secret; `put` writes under the first secret's name only.
 */
import type { Cipher } from "./cipher.js";
import type { FleetConnection } from "./connection.js";
import type { SingleUseStore } from "./single-use.js";

export function redisSingleUse(connection: FleetConnection, cipher: Cipher, prefix: string): SingleUseStore {
  const namesOf = (key: string): string[] => cipher.names(key).map((name) => `${prefix}:su:${name}`);
  const firstOpened = (names: string[], sealed: (string | null)[]): string | undefined => {
    for (const [i, value] of sealed.entries()) {
      const plain = value === null ? undefined : cipher.open(value, names[i]!);
      if (plain !== undefined) return plain;
    }
    return undefined;
  };
  return {
    async put(key, value, ttlMs) {
      if (ttlMs <= 0) return;
      const name = `${prefix}:su:${cipher.name(key)}`;
      await connection.run((redis) => redis.set(name, cipher.seal(value, name), "PX", Math.ceil(ttlMs)));
    },
    async claim(key, value, ttlMs) {
      if (ttlMs <= 0) return false;
      const name = `${prefix}:su:${cipher.name(key)}`;
      const set = await connection.run((redis) => redis.set(name, cipher.seal(value, name), "PX", Math.ceil(ttlMs), "NX"));
      return set === "OK";
    },
    async take(key) {
      const names = namesOf(key);
      const results = (await connection.run((redis) => names.reduce((multi, name) => multi.getdel(name), redis.multi()).exec())) ?? [];
      return firstOpened(names, results.map(([, value]) => (value as string | null) ?? null));
    },
    async peek(key) {
      const names = namesOf(key);
      return firstOpened(names, await connection.run((redis) => redis.mget(...names)));
    },
  };
}
