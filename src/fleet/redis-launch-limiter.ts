/**
 * The per-student launch limit in Redis: the same token bucket as the in-process one,
 * one hash per (exam, student) under a keyed-hash name, updated atomically in Lua with
 * Redis's clock, expiring once it would be full again.
 */
import type { Cipher } from "./cipher.js";
import type { FleetConnection } from "./connection.js";
import { decision, type LaunchLimiter, type LaunchLimitSettings } from "./launch-limiter.js";

/** ARGV: burst, refillMs, take (1 | 0) → tokens after (string, as a Lua number would be truncated). */
const BUCKET = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst, refillMs, take = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or ARGV[1])
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or now)
tokens = math.min(burst, tokens + math.max(0, now - at) / refillMs)
if take == 1 then
  tokens = math.max(-burst, tokens - 1)
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * refillMs) + 1000)
end
return tostring(tokens)
`;

export function defineLimiterScripts(define: (name: string, lua: string, keys: number) => void): void {
  define("launchBucket", BUCKET, 1);
}

export function redisLaunchLimiter(connection: FleetConnection, cipher: Cipher, prefix: string, settings: LaunchLimitSettings): LaunchLimiter {
  const keyOf = (examId: string, userKey: string): string => `${prefix}:lim:${cipher.name(`${examId}\u0000${userKey}`)}`;
  const bucket = async (examId: string, userKey: string, take: 0 | 1) => {
    const tokens = await connection.run((redis) =>
      (redis as unknown as { launchBucket(...a: (string | number)[]): Promise<string> }).launchBucket(keyOf(examId, userKey), settings.burst, settings.refillMs, take));
    return decision(Number(tokens), settings);
  };
  return {
    check: (examId, userKey) => bucket(examId, userKey, 0),
    record: (examId, userKey) => bucket(examId, userKey, 1),
  };
}
