/**
 * The per-student launch limit in Redis: the same token bucket and failure backoff as
 * the in-process one (launch-limiter.ts), one hash per (exam, student) under a
 * keyed-hash name, updated atomically in Lua with Redis's clock, expiring once the
 * bucket is full again and the failure streak is forgotten. The last failure is sealed
 * (bound to its key) before it is stored: a value written by anyone without the fleet
 * secret is not shown to a student, the bucket still counts.
 */
import type { Cipher } from "./cipher.js";
import type { FleetConnection } from "./connection.js";
import { decision, type LaunchLimiter, type LaunchLimitSettings } from "./launch-limiter.js";

/**
 * ARGV: burst, refillMs, op (0 check | 1 token issued | 2 failed call), failureBackoffMs,
 * maxFailureBackoffMs, sealed failure (op 2) → { tokens (a string: a Lua number would
 * be truncated), backoff ms left, failures in a row, sealed last failure or "" }.
 */
const BUCKET = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst, refillMs, op = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local baseMs, maxMs = tonumber(ARGV[4]), tonumber(ARGV[5])
local h = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'failures', 'until', 'last')
local tokens = tonumber(h[1] or ARGV[1])
local at = tonumber(h[2] or now)
local failures = tonumber(h[3] or 0)
local untilMs = tonumber(h[4] or 0)
local last = h[5] or ''
if failures > 0 and now >= untilMs + maxMs then failures = 0; untilMs = 0; last = '' end
tokens = math.min(burst, tokens + math.max(0, now - at) / refillMs)
if op ~= 0 then
  tokens = math.max(-burst, tokens - 1)
  if op == 1 then
    failures = 0; untilMs = 0; last = ''
  else
    failures = failures + 1
    untilMs = now + math.min(baseMs * 2 ^ (failures - 1), maxMs)
    last = ARGV[6]
  end
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now, 'failures', failures, 'until', untilMs, 'last', last)
  local keep = math.ceil((burst - tokens) * refillMs)
  if failures > 0 then keep = math.max(keep, untilMs - now + maxMs) end
  redis.call('PEXPIRE', KEYS[1], keep + 1000)
end
return { tostring(tokens), math.max(0, untilMs - now), failures, last }
`;

export function defineLimiterScripts(define: (name: string, lua: string, keys: number) => void): void {
  define("launchBucket", BUCKET, 1);
}

type BucketCommand = (...a: (string | number)[]) => Promise<[string, number, number, string]>;

export function redisLaunchLimiter(connection: FleetConnection, cipher: Cipher, prefix: string, settings: LaunchLimitSettings): LaunchLimiter {
  const keyOf = (examId: string, userKey: string): string => `${prefix}:lim:${cipher.name(`${examId}\u0000${userKey}`)}`;
  const bucket = async (examId: string, userKey: string, op: 0 | 1 | 2, failure?: string) => {
    const key = keyOf(examId, userKey);
    const sealed = failure === undefined ? "" : cipher.seal(failure, key);
    const [tokens, backoffLeftMs, failures, last] = await connection.run((redis) =>
      (redis as unknown as { launchBucket: BucketCommand }).launchBucket(
        key, settings.burst, settings.refillMs, op, settings.failureBackoffMs, settings.maxFailureBackoffMs, sealed));
    const lastFailure = Number(failures) > 0 && last ? cipher.open(last, key) : undefined;
    return decision(Number(tokens), settings, Number(backoffLeftMs), lastFailure);
  };
  return {
    check: (examId, userKey) => bucket(examId, userKey, 0),
    record: (examId, userKey) => bucket(examId, userKey, 1),
    recordFailure: (examId, userKey, failure) => bucket(examId, userKey, 2, failure),
  };
}
