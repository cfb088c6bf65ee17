/**
 * The shared budget's admission script: admit a call, or reserve its slot, or hold it (see
 * rate-budget-prelude.ts for the keys and the clock).
 */
import { PRELUDE } from "./rate-budget-prelude.js";

/**
 * ARGV: id, priority, limit, windowMs, launchShare, leaseMs, graceMs, mode ("new" | "due"),
 * for "due" the window the reservation was made on, normalShare, the window epoch the
 * instance knew ("" if none), the probe's lease (ms), the instance's id, expectedInstances,
 * how long after a loss instances may still be coming back (ms), the configured windowMs
 * (the keys' idle lifetime), "1" when the instance comes back from an outage (its first
 * script since) else "0".
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
elseif ARGV[17] == '1' and known == epoch then
  -- Back from an outage, and Redis kept the window: the other instances may have been cut
  -- off too, and what they sent on their fallback is not in it. Recovered from as a loss
  -- (taken to be full for a window, their shares kept until they are back), unless a
  -- recovery is under way.
  local full, born = num(redis.call('HGET', KEYS[9], 'fullUntil'), 0), num(redis.call('HGET', KEYS[9], 'born'), 0)
  if now >= math.max(full, born + tonumber(ARGV[15])) then
    for _, field in ipairs(redis.call('HKEYS', KEYS[9])) do
      if string.sub(field, 1, 2) == 'i:' then redis.call('HDEL', KEYS[9], field) end
    end
    redis.call('HSET', KEYS[9], 'born', now, 'fullUntil', now + W, 'back', 0)
  end
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
-- yet taken up. A normal call within its share holds the place of the launch whose turn it
-- took (see the end), so it counts only what is ahead of that place: counting every due
-- reservation, as it once did, it lost each look to the launches behind it and went last
-- whenever the window's calls were answered after the launches reserved (a storm's calls
-- are in flight while the next ones reserve). A call out of line (reserved before the line
-- was kept) counts every other due reservation. A place whose reservation left the window
-- is dropped.
local function dueAhead(mine)
  local place = redis.call('ZSCORE', KEYS[12], id)
  if not place then
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
local probe = false
if remaining and tonumber(remaining) <= othersShare and resetAt > now then
  -- Until the Reset, or sooner when a call of ours leaves the window (which frees a
  -- platform slot too, see the prelude): whichever comes first.
  local frees = math.min(resetAt, firstLeavesAt() or resetAt)
  -- An estimate that may be low: the platform itself said it had room and only the calls
  -- admitted after that answer were taken off (which counts twice each that reached the
  -- platform first: an instance's send lag, the network's jitter; five to ten in a fleet's
  -- storm), or calls of ours left the window while the answered call was out (counted in
  -- it or not: unknown). With nothing in flight no answer will correct it, and the slots
  -- it holds stay idle until a call leaves the window (up to a window): so while our own
  -- window has room, one call fleet-wide goes to learn the real Remaining, and due
  -- reservations look again shortly rather than then. Not while recovering from a loss:
  -- the instances not back yet send what no answer here has counted.
  if othersShare == 0 and redis.call('HGET', KEYS[5], 'mayBeLow') == '1' and redis.call('ZCARD', KEYS[11]) < L then
    if redis.call('ZCARD', KEYS[2]) == 0 and redis.call('SET', KEYS[10], id, 'NX', 'PX', probeLease) then probe = true
    else frees = math.min(frees, now + math.max(10, math.floor(W / 50))) end
  end
  -- A reservation keeps its place: dropped, its slot in this window would go to nobody
  -- (the reservations behind it were computed with it in the line) and it would queue
  -- again behind everyone.
  if not probe and mode == 'due' and redis.call('ZSCORE', KEYS[1], id) then return keep(math.max(frees, now + 1)) end
  if not probe then return hold(frees - now) end
end
-- Taken to be full, and no Remaining known (none seen since, or its Reset passed): one
-- call fleet-wide goes to learn it; the others look again shortly.
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
if lane ~= priority and not redis.call('ZSCORE', KEYS[12], id) then
  -- A normal call within its share takes the turn of the next launch waiting (the first
  -- reserved time not yet due): its time and, just ahead of it, its place in line. The
  -- launch finds its reservation gone when it wakes and queues again from its own place
  -- (the window is never booked twice over). The next launch, not the one reserved at
  -- exactly \`at\`: a launch's time was computed from the calls' send times, \`at\` from
  -- their answers when they were answered since, so the two rarely match.
  local next = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. (now + grace), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local holder = next[1]
  local place = holder and redis.call('ZSCORE', KEYS[12], holder)
  if place then
    redis.call('ZREM', KEYS[1], holder)
    redis.call('ZREM', KEYS[3], holder)
    redis.call('ZADD', KEYS[12], tonumber(place) - 1, id)
    at = math.min(at, tonumber(next[2]) - grace)
  end
end
return reserve(at)
`;
