/**
 * The shared budget's other Lua scripts: an answer in, a reservation given up, a platform
 * 429, a platform's X-RateLimit-* facts, the fleet-wide figures. Each runs atomically in
 * Redis on Redis's clock; the keys and the prelude: rate-budget-prelude.ts; admission:
 * rate-budget-acquire.ts.
 */
import { PRELUDE } from "./rate-budget-prelude.js";

export { ACQUIRE } from "./rate-budget-acquire.js";
export { BUDGET_KEYS } from "./rate-budget-prelude.js";

/** ARGV: id, (unused), limit, windowMs, configured windowMs. The answer is in: the call counts until W after now. */
export const RELEASE = `${PRELUDE}
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], 'GT', now, ARGV[1])
-- A probe answered without telling a Remaining: the next call probes.
if redis.call('GET', KEYS[10]) == ARGV[1] then redis.call('DEL', KEYS[10]) end
expireIdle(ARGV[5])
return 1
`;

/** ARGV: id. A caller gave up on its reservation: the slot goes to the next. */
export const ABANDON = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
redis.call('ZREM', KEYS[8], ARGV[1])
redis.call('ZREM', KEYS[12], ARGV[1])
return 1
`;

/** ARGV: pauseMs. A platform 429: hold every instance until Retry-After. */
export const PAUSE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[4]) or '0')
if now + ms > current then redis.call('SET', KEYS[4], now + ms, 'PX', ms) end
return 1
`;

/**
 * ARGV: limit (0 = none), remaining (-1 = none), resetInMs, detectedWindowMs (0 = none),
 * metaTtlMs, and the id of the call that brought the response ("" if unknown). Shares
 * one response's X-RateLimit-* facts with the fleet.
 */
export const OBSERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, remaining, resetIn, window, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if limit > 0 then redis.call('HSET', KEYS[6], 'limit', limit) end
if window > 0 then redis.call('HSET', KEYS[6], 'window', window) end
if limit > 0 or window > 0 then redis.call('PEXPIRE', KEYS[6], ttl) end
if remaining >= 0 and resetIn > 0 then
  -- Calls still in flight fleet-wide that were sent after this one may not be counted in
  -- it yet (those sent before it were). Without the call's id: every other call in flight.
  local pending = math.max(0, redis.call('ZCARD', KEYS[2]) - 1)
  local sentAt = ARGV[6] ~= '' and redis.call('ZSCORE', KEYS[11], ARGV[6])
  if sentAt then
    -- Our calls sent from this one's sending on, in flight or answered since: the
    -- platform had not counted them when it answered this one. Not those sent before it,
    -- even if answered since: it had counted those, and counting them again held a
    -- storm's calls back by up to the calls in flight (the fleet bench's ratio went from
    -- about 0.95 to 1.28).
    pending = redis.call('ZCOUNT', KEYS[11], '(' .. sentAt, '+inf')
  end
  -- \`mayBeLow\`: the platform itself said it had room (so only the calls taken off above
  -- can make it 0), or calls of ours left the window since this one was sent (counted in
  -- this Remaining or not: unknown; the prelude had added them to the one it replaces).
  -- Either is a reason to learn the real one when it reads 0 (rate-budget-acquire.ts).
  local mayBeLow = remaining > 0 or (sentAt and redis.call('ZCOUNT', KEYS[13], math.floor(tonumber(sentAt) / 1000), '+inf') > 0)
  redis.call('HSET', KEYS[5], 'remaining', remaining - pending, 'mayBeLow', mayBeLow and 1 or 0, 'resetAt', now + resetIn)
  redis.call('PEXPIRE', KEYS[5], resetIn)
  redis.call('DEL', KEYS[10])
end
return 1
`;

/** ARGV: -, -, limit, windowMs. Fleet-wide figures for stats. */
export const STATS = `${PRELUDE}
return { redis.call('ZCOUNT', KEYS[1], '-inf', now), redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]),
  math.max(0, num(redis.call('GET', KEYS[4]), 0) - now), num(redis.call('HGET', KEYS[5], 'remaining'), -1), W, L,
  redis.call('ZCARD', KEYS[3]) }
`;
