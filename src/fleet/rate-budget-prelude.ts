/**
 * The shared budget's keys and the prelude every admitting script starts with (the
 * scripts: rate-budget-acquire.ts, rate-budget-scripts.ts). Each script runs atomically in
 * Redis and reads Redis's own clock (`TIME`), never an instance's: instance clocks drift,
 * and a 200 ms skew at 600/min is two extra requests in a window.
 *
 * Keys of one API key's budget (one hash tag, so they live on one Redis Cluster slot):
 *   1 window   zset  member = call id, score = ms from which it counts: its reserved send
 *                    time, then its send time, then (once answered) its answer time; it
 *                    leaves the window `W` after that score.
 *   2 flight   zset  calls in flight, score = lease end; an in-flight call never leaves
 *                    the window, however slow; a lease lapses only if its instance died.
 *   3 launches zset  launch calls holding a reservation, score = reserved time + grace:
 *                    while one is there, normal calls keep `launchShare` of the window free.
 *   4 pause    string until when a platform 429 holds every call (ms, Redis clock).
 *   5 server   hash  the platform's last Remaining (minus sends since, plus our calls that
 *                    left the window since) until its reset.
 *   6 meta     hash  `limit` the platform reported; `window` the real window detected.
 *   7 normals  zset  normal calls holding a reservation, score = reserved time: a launch
 *                    queues behind sent calls and other launches only, never behind these.
 *   8 kept     zset  normal calls sent (score = send time) or reserved (score = reserved
 *                    time) within their `normalShare` of the window: while fewer than
 *                    ⌈normalShare × limit⌉ are there, a normal call queues as a launch, ahead
 *                    of the launches waiting, so a launch storm cannot shut it out.
 *   9 epoch    hash  `id` and `born` of this window's life in Redis, and `fullUntil`: a
 *                    window found gone by an instance that knew an older one (Redis came
 *                    back empty) is taken to be full until a window after it was lost;
 *                    `back` and `i:<instance>`: the instances back on it since (while the
 *                    others may still run on their fallback, their share is kept for them).
 *  10 probe    string the one call sent, fleet-wide, to learn the platform's Remaining
 *                    while the window is taken to be full and none is known.
 *  11 sends    zset  calls sent (member = call id, score = send time in µs), as long as
 *                    they count in the window: a Remaining is lowered by the calls sent
 *                    after the one that brought it, in flight or answered since (the
 *                    window's own score moves to the answer time, so it cannot tell them
 *                    apart). Microseconds: the scripts run one at a time, so two sends
 *                    never share a time, and "after" is the order the fleet admitted them.
 *  12 line     zset  calls holding a reservation, score = when each first reserved (µs):
 *                    their place in line. A reservation whose time has come goes before
 *                    the due reservations behind it in line, however often it was moved
 *                    (a slot still held when its time came moves it), and they do not
 *                    count against it: moved reservations used to all fall due at once,
 *                    each counting the others, so that a freed slot went to whichever
 *                    looked first or to nobody (one reserved at 1.1 s was admitted at 6.3 s).
 *  13 left     zset  sent calls that left the window in the last window (member = call
 *                    id, score = when): an answer's Remaining may still count those that
 *                    left while the answered call was out, and the prelude had added them
 *                    to the Remaining it replaces (OBSERVE marks such a Remaining `mayBeLow`).
 *
 * Every key expires when idle: `pause`, `server`, `meta` and `probe` by their own lifetimes
 * (`meta` ten configured windows), the others two configured windows after the last call
 * in them stops counting (`expireIdle`, run by each script that writes them).
 */


export const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function num(v, d) if v then return tonumber(v) end return d end
local W = tonumber(ARGV[4])
local detected = num(redis.call('HGET', KEYS[6], 'window'), 0)
if detected > 0 and detected < W then W = detected end
local L = tonumber(ARGV[3])
local platformLimit = num(redis.call('HGET', KEYS[6], 'limit'), 0)
-- A negative limit is a default the platform's stated limit replaces (scriptLimit).
if L < 0 then
  L = -L
  if platformLimit > 0 then L = platformLimit end
elseif platformLimit > 0 and platformLimit < L then L = platformLimit end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - W)
local left = 0
for _, member in ipairs(old) do
  if not redis.call('ZSCORE', KEYS[2], member) then
    redis.call('ZREM', KEYS[1], member)
    -- Only a call that was sent frees a platform slot (not a reservation given up).
    if redis.call('ZREM', KEYS[11], member) == 1 then
      left = left + 1
      redis.call('ZADD', KEYS[13], now, member)
    end
  end
end
-- Every call in our window is counted in the platform's last Remaining (observed, or
-- taken at admission). One that left our window has left the platform's too (ours runs
-- from the answer, the platform's from arrival): its slot is free there again, without
-- waiting for the Reset, which the platform rounds up to a whole second.
redis.call('ZREMRANGEBYSCORE', KEYS[13], '-inf', now - W)
if left > 0 then
  local rem = redis.call('HGET', KEYS[5], 'remaining')
  if rem then redis.call('HSET', KEYS[5], 'remaining', math.min(L, tonumber(rem) + left)) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now - W)
redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', now - W)
-- Nothing of an idle key lives forever (a thousand organizations' keys would): every key
-- this script may have written expires one window after the last thing in it stops
-- counting (the latest score in the window, or lease end in flight, plus a window), in
-- the configured window (not a shorter one detected: the instances forget the
-- epoch after 1.5 configured windows of their own idleness, see redis-rate-budget.ts, so
-- a window that expired for being idle is never taken for one Redis lost).
local function expireIdle(configured)
  local Wc = math.max(W, tonumber(configured) or W)
  local last = now
  local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  if latest[2] then last = math.max(last, tonumber(latest[2])) end
  local lease = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if lease[2] then last = math.max(last, tonumber(lease[2])) end
  local ttl = math.ceil(last - now + 2 * Wc)
  for _, i in ipairs({ 1, 2, 3, 7, 8, 9, 11, 12, 13 }) do redis.call('PEXPIRE', KEYS[i], ttl) end
end
`;

/** How many keys each script is given (their order: the list above). */
export const BUDGET_KEYS = 13;
