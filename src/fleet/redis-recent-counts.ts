/**
 * Recent counts in Redis, fleet-wide: one counter per name and 10-second bucket
 * (`<prefix>:recent:{<name>}:<bucket>`), incremented by each instance and expiring
 * `RECENT_KEEP_MS` after its bucket began. A count is not a secret and hands nothing out,
 * so it is stored plain; a forged one can only mislead the live view, never a launch.
 */
import type { FleetConnection } from "./connection.js";
import { bucketsOf, RECENT_BUCKET_MS, RECENT_KEEP_MS, type RecentCounts } from "./recent-counts.js";

export function redisRecentCounts(connection: FleetConnection, prefix: string): RecentCounts {
  const key = (name: string, bucket: number) => `${prefix}:recent:{${name}}:${bucket}`;
  return {
    async add(name, n = 1) {
      const bucket = Math.floor(Date.now() / RECENT_BUCKET_MS);
      const k = key(name, bucket);
      await connection.run((redis) => redis.multi().incrby(k, n).pexpire(k, RECENT_KEEP_MS).exec());
    },
    async sum(name, windowMs) {
      const keys = bucketsOf(Date.now(), windowMs).map((bucket) => key(name, bucket));
      const values = await connection.run((redis) => redis.mget(...keys));
      return values.reduce((total, v) => total + (Number.parseInt(v ?? "0", 10) || 0), 0);
    },
  };
}
