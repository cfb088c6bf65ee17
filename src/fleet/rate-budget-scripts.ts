/**
 * The shared budget's Lua scripts. Each runs atomically in Redis and reads Redis's own
 * clock (`TIME`), never an instance's: instance clocks drift, and a 200 ms skew at
 * 600/min is two extra requests in a window.
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
 *
 * Every key expires when idle: `pause`, `server`, `meta` and `probe` by their own lifetimes
 * (`meta` ten configured windows), the others two configured windows after the last call
 * in them stops counting (`expireIdle`, run by each script that writes them).
 */

const PRELUDE = `
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
    if redis.call('ZREM', KEYS[11], member) == 1 then left = left + 1 end
  end
end
-- Every call in our window is counted in the platform's last Remaining (observed, or
-- taken at admission). One that left our window has left the platform's too (ours runs
-- from the answer, the platform's from arrival): its slot is free there again, without
-- waiting for the Reset, which the platform rounds up to a whole second.
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
  for _, i in ipairs({ 1, 2, 3, 7, 8, 9, 11, 12 }) do redis.call('PEXPIRE', KEYS[i], ttl) end
end
`;

/**
 * ARGV: id, priority, limit, windowMs, launchShare, leaseMs, graceMs, mode ("new" | "due"),
 * for "due" the window the reservation was made on, normalShare, the window epoch the
 * instance knew ("" if none), the probe's lease (ms), the instance's id, expectedInstances,
 * how long after a loss instances may still be coming back (ms), the configured windowMs
 * (the keys' idle lifetime).
 * Returns { waitMs, status, sentInWindow, pausedForMs, serverRemaining (-1: unknown), windowMs, epoch }:
 * status 1 = admitted (send now), 2 = slot reserved (sleep waitMs, then call again with
 * mode "due"), 0 = held without a reservation (pause, platform Remaining 0, or a normal
 * call while launches wait), call again with mode "new" after waitMs.
 */
export const ACQUIRE = `${PRELUDE}
local id, priority, share, lease, grace, mode = ARGV[1], ARGV[2], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local normalShare, known, probeLease = tonumber(ARGV[10]), ARGV[11], tonumber(ARGV[12])
-- The window's epoch: gone while this instance knew one means Redis lost the window.
local epoch = redis.call('HGET', KEYS[9], 'id')
if not epoch then
  epoch = id
  redis.call('HSET', KEYS[9], 'id', epoch, 'born', now)
  if known ~= '' then redis.call('HSET', KEYS[9], 'fullUntil', now + W) end
elseif known ~= '' and known ~= epoch and not redis.call('HGET', KEYS[9], 'fullUntil') then
  -- Another instance saw the empty Redis first, without knowing the window before it.
  local born = num(redis.call('HGET', KEYS[9], 'born'), 0)
  if born > now - W then redis.call('HSET', KEYS[9], 'fullUntil', born + W) end
end
local fullUntil = num(redis.call('HGET', KEYS[9], 'fullUntil'), 0)
-- Recovering from a loss: the instances not back on this window yet may still send on
-- their fallback (up to ⌊L ÷ expected⌋ each per window, on their share of a Remaining), so
-- the window and any Remaining keep that much for each of them. Instances reconnect at
-- different times (up to a few seconds apart): until every expected one is back, or
-- \`returnWithin\` after the loss was found, or the window taken to be full ends.
local othersShare = 0
if fullUntil > 0 then
  local instance, expected, returnWithin = ARGV[13], tonumber(ARGV[14]), tonumber(ARGV[15])
  local born = num(redis.call('HGET', KEYS[9], 'born'), 0)
  if now < math.max(fullUntil, born + returnWithin) then
    if redis.call('HSETNX', KEYS[9], 'i:' .. instance, 1) == 1 then redis.call('HINCRBY', KEYS[9], 'back', 1) end
    local back = num(redis.call('HGET', KEYS[9], 'back'), 0)
    if back < expected then othersShare = (expected - back) * math.floor(L / expected) end
  end
end
L = math.max(1, L - othersShare)
-- A normal call within its share queues as a launch, ahead of the launches waiting.
local kept = redis.call('ZCARD', KEYS[8])
if redis.call('ZSCORE', KEYS[8], id) then kept = kept - 1 end
local lane = priority
if priority ~= 'launch' and kept < math.ceil(normalShare * L) then lane = 'launch' end
local function reply(wait, status)
  expireIdle(ARGV[16])
  local rem = redis.call('HGET', KEYS[5], 'remaining')
  return { math.max(0, math.ceil(wait)), status, redis.call('ZCOUNT', KEYS[1], '-inf', now), math.max(0, num(redis.call('GET', KEYS[4]), 0) - now), num(rem, -1), W, epoch }
end
local function hold(wait)
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[7], id)
  redis.call('ZREM', KEYS[8], id)
  redis.call('ZREM', KEYS[12], id)
  return reply(math.max(1, wait), 0)
end
local function reserve(at)
  redis.call('ZADD', KEYS[1], at, id)
  -- Its place in line: when it first reserved (kept when it is moved or reserves again).
  redis.call('ZADD', KEYS[12], 'NX', nowUs, id)
  if lane == 'launch' then redis.call('ZADD', KEYS[3], at + grace, id) else redis.call('ZADD', KEYS[7], at, id) end
  if lane ~= priority then redis.call('ZADD', KEYS[8], at, id) end
  return reply(at - now, 2)
end
-- A reservation's place, moved to \`at\` (it counts in the window from then).
local function keep(at)
  return reserve(at)
end
-- The reservations ahead of ours in line (first reserved before it) that go before it:
-- those due, and launches' whatever their time (one moved past ours when its slot was
-- still held keeps its place; a new launch counts them all too). Those behind it do not
-- count against it. A launch does not wait for normal reservations that are due but not
-- yet taken up. A normal call within its share goes ahead of the launches (it takes one of
-- the next slots, not a place at the back of their line) and, like a call out of line
-- (reserved before the line was kept), counts every other due reservation. A place whose
-- reservation left the window is dropped.
local function dueAhead(mine)
  local place = redis.call('ZSCORE', KEYS[12], id)
  if not place or lane ~= priority then
    local due = redis.call('ZCOUNT', KEYS[1], '-inf', now) - redis.call('ZCARD', KEYS[11])
    if mine and tonumber(mine) <= now then due = due - 1 end
    if priority == 'launch' then due = due - redis.call('ZCOUNT', KEYS[7], '-inf', now) end
    return math.max(0, due)
  end
  local ahead = 0
  for _, other in ipairs(redis.call('ZRANGEBYSCORE', KEYS[12], '-inf', '(' .. place)) do
    local at = redis.call('ZSCORE', KEYS[1], other)
    if not at then redis.call('ZREM', KEYS[12], other)
    elseif (tonumber(at) <= now or redis.call('ZSCORE', KEYS[3], other)) and (priority ~= 'launch' or not redis.call('ZSCORE', KEYS[7], other)) then ahead = ahead + 1 end
  end
  return ahead
end
-- When the first call counted in the window now leaves it (nil: none is counted).
local function firstLeavesAt()
  local first = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - W), now, 'WITHSCORES', 'LIMIT', 0, 1)
  if first[2] then return tonumber(first[2]) + W end
  return nil
end
local pausedUntil = num(redis.call('GET', KEYS[4]), 0)
if pausedUntil > now then return hold(pausedUntil - now) end
local remaining = redis.call('HGET', KEYS[5], 'remaining')
local resetAt = num(redis.call('HGET', KEYS[5], 'resetAt'), 0)
if remaining and tonumber(remaining) <= othersShare and resetAt > now then
  -- Until the Reset, or sooner when a call of ours leaves the window (which frees a
  -- platform slot too, see the prelude): whichever comes first.
  local frees = math.min(resetAt, firstLeavesAt() or resetAt)
  -- A reservation keeps its place: dropped, its slot in this window would go to nobody
  -- (the reservations behind it were computed with it in the line) and it would queue
  -- again behind everyone.
  if mode == 'due' and redis.call('ZSCORE', KEYS[1], id) then return keep(math.max(frees, now + 1)) end
  return hold(frees - now)
end
-- Taken to be full, and no Remaining known (none seen since, or its Reset passed): one
-- call fleet-wide goes to learn it; the others look again shortly.
local probe = false
if fullUntil > now and not remaining then
  if redis.call('SET', KEYS[10], id, 'NX', 'PX', probeLease) then probe = true
  else return hold(math.min(fullUntil - now, math.max(20, math.floor(W / 200)))) end
end

local cap = L
if lane ~= 'launch' and redis.call('ZCARD', KEYS[3]) > 0 then cap = math.floor(L * (1 - share)) end
local function admit()
  redis.call('ZADD', KEYS[1], now, id)
  redis.call('ZADD', KEYS[2], now + lease, id)
  redis.call('ZADD', KEYS[11], nowUs, id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[7], id)
  redis.call('ZREM', KEYS[12], id)
  if priority ~= 'launch' then redis.call('ZADD', KEYS[8], now, id) end
  if remaining then redis.call('HINCRBY', KEYS[5], 'remaining', -1) end
  return reply(0, 1)
end
if probe then return admit() end

if mode == 'due' then
  -- Our reserved time has come. Count what was really sent (or is due) by now, not the
  -- reservations behind us: if a slot is free, go; an in-flight call may have held its
  -- slot past the time we reserved on, then we reserve again below.
  local mine = redis.call('ZSCORE', KEYS[1], id)
  local sent = redis.call('ZCARD', KEYS[11]) + dueAhead(mine)
  if sent < cap then return admit() end
  -- Woken early (a look on a long wait): keep our place unless the window it was
  -- computed on has since shrunk (a shorter real window was detected).
  if mine and tonumber(mine) > now and tonumber(ARGV[9]) <= W then return reply(tonumber(mine) - now, 2) end
  if mine and tonumber(ARGV[9]) <= W then
    -- Our time came, but the call our slot was computed from is still counted: it was in
    -- flight then, and counts from its answer. Keep our place (going to the back would
    -- leave this slot to nobody) and look again when the first counted call leaves.
    return keep(math.max(now + math.max(5, math.floor(W / 100)), firstLeavesAt() or 0))
  end
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[7], id)
  redis.call('ZREM', KEYS[8], id)
end

local total = redis.call('ZCARD', KEYS[1])
local at = now + W
if lane == 'launch' then
  -- Launches count sent calls and other launches' reservations, not normal reservations
  -- (those re-check at their time and yield to us then). A normal call within its share
  -- counts sent calls and due normal reservations only: it takes the next slot that frees.
  local sent = redis.call('ZCOUNT', KEYS[1], '-inf', now)
  if lane == priority then sent = sent - redis.call('ZCOUNT', KEYS[7], '-inf', now) end
  local launches = {}
  if lane == priority then launches = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. (now + grace), '+inf', 'WITHSCORES') end
  local ahead = sent + #launches / 2
  if ahead < L then return admit() end
  local index = ahead - L
  if index < sent then
    local entry = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
    if entry[2] then at = tonumber(entry[2]) + W end
  else
    at = tonumber(launches[(index - sent) * 2 + 2]) - grace + W
  end
else
  if total < cap then return admit() end
  -- Full: the slot we get frees when the entry (total - cap) leaves the window.
  local index = total - cap
  local entry = redis.call('ZRANGE', KEYS[1], index, index, 'WITHSCORES')
  if entry[2] then at = tonumber(entry[2]) + W end
end
-- An entry still in flight past its window holds its slot until answered: look again soon, not in a busy loop.
if at <= now then at = now + math.max(50, math.floor(W / 20)) end
if lane ~= 'launch' and cap < L then
  -- Launches are waiting: normal calls do not queue ahead of them; they look again then.
  return hold(at - now)
end
if lane ~= priority then
  -- A normal call within its share takes the slot a launch reserved at that time: the
  -- launch finds its place gone when it wakes and queues again (the window is never
  -- booked twice over).
  local holder = redis.call('ZRANGEBYSCORE', KEYS[3], at + grace, at + grace, 'LIMIT', 0, 1)[1]
  if holder then
    redis.call('ZREM', KEYS[1], holder)
    redis.call('ZREM', KEYS[3], holder)
  end
end
return reserve(at)
`;

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
  redis.call('HSET', KEYS[5], 'remaining', remaining - pending, 'resetAt', now + resetIn)
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

export const BUDGET_KEYS = 12;
