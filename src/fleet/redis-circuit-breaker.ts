/**
 * The circuit breakers of a fleet in Redis: one hash per scope under a keyed-hash name
 * (the scope holds the API key's hash; Redis sees neither), updated atomically by one
 * Lua script on Redis's clock (`TIME`), so every instance sees one state and exactly one
 * of them gets the half-open probe. The script is `circuit-breaker.ts`'s state machine,
 * line for line; both stores pass the same contract (test/fleet/contracts/).
 */
import type { Cipher } from "./cipher.js";
import type { FleetConnection } from "./connection.js";
import {
  PROBE_RETRY_MS, type BreakerAdmission, type BreakerStateName, type BreakerTransition, type BreakerVerdict,
  type CircuitBreakerSettings, type CircuitBreakerStore,
} from "./circuit-breaker.js";

/**
 * ARGV: op (admit | settle | view), minFailures, failureRatio, windowMs, openMs,
 * probeLeaseMs, verdict, probe (1 | 0), probe retry ms.
 * admit → { "allowed" | "probe" | "open" | "half_open", retryAfterMs }; settle → "opened" | "closed" | "";
 * view → { state, retryAfterMs }.
 */
const BREAKER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local op = ARGV[1]
local minFailures, ratio, windowMs = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local openMs, leaseMs = tonumber(ARGV[5]), tonumber(ARGV[6])
local f = redis.call('HMGET', KEYS[1], 'state', 'bucketStart', 'failures', 'successes', 'previousFailures', 'previousSuccesses', 'openUntil', 'probeUntil')
local r = {
  state = f[1] or 'closed', bucketStart = tonumber(f[2] or now), failures = tonumber(f[3] or 0), successes = tonumber(f[4] or 0),
  pf = tonumber(f[5] or 0), ps = tonumber(f[6] or 0), openUntil = tonumber(f[7] or 0), probeUntil = tonumber(f[8] or 0)
}
local function save()
  redis.call('HSET', KEYS[1], 'state', r.state, 'bucketStart', r.bucketStart, 'failures', r.failures, 'successes', r.successes,
    'previousFailures', r.pf, 'previousSuccesses', r.ps, 'openUntil', r.openUntil, 'probeUntil', r.probeUntil)
  redis.call('PEXPIRE', KEYS[1], 2 * windowMs + openMs + leaseMs)
end
local function reset(state)
  r.state = state; r.bucketStart = now; r.failures = 0; r.successes = 0; r.pf = 0; r.ps = 0; r.openUntil = 0; r.probeUntil = 0
end
if op == 'view' then
  if r.state == 'open' then return { r.state, math.max(0, r.openUntil - now) } end
  return { r.state, 0 }
end
if op == 'admit' then
  if r.state == 'closed' then return { 'allowed', 0 } end
  if r.state == 'open' and now < r.openUntil then return { 'open', r.openUntil - now } end
  if r.state == 'half_open' and now < r.probeUntil then return { 'half_open', math.min(tonumber(ARGV[9]), r.probeUntil - now) } end
  r.state = 'half_open'
  r.probeUntil = now + leaseMs
  save()
  return { 'probe', 0 }
end
local verdict, probe = ARGV[7], ARGV[8] == '1'
if r.state == 'open' then return '' end
if r.state == 'half_open' then
  if verdict == 'success' then reset('closed'); save(); return 'closed' end
  if not probe then return '' end
  if verdict == 'failure' then reset('open'); r.openUntil = now + openMs; save(); return 'opened' end
  r.probeUntil = 0
  save()
  return ''
end
if verdict == 'neutral' then return '' end
local elapsed = now - r.bucketStart
if elapsed >= windowMs then
  local buckets = math.floor(elapsed / windowMs)
  if buckets == 1 then r.pf = r.failures; r.ps = r.successes else r.pf = 0; r.ps = 0 end
  r.failures = 0; r.successes = 0
  r.bucketStart = r.bucketStart + buckets * windowMs
end
if verdict == 'success' then r.successes = r.successes + 1 else r.failures = r.failures + 1 end
if verdict == 'failure' then
  local weight = math.max(0, 1 - (now - r.bucketStart) / windowMs)
  local failures = r.failures + r.pf * weight
  local calls = failures + r.successes + r.ps * weight
  if failures >= minFailures and failures >= ratio * calls then
    reset('open')
    r.openUntil = now + openMs
    save()
    return 'opened'
  end
end
save()
return ''
`;

export function defineBreakerScripts(define: (name: string, lua: string, keys: number) => void): void {
  define("eoaBreaker", BREAKER, 1);
}

type BreakerCommand = (key: string, ...args: (string | number)[]) => Promise<unknown>;

export function redisCircuitBreaker(connection: FleetConnection, cipher: Cipher, prefix: string, settings: CircuitBreakerSettings): CircuitBreakerStore {
  const keyOf = (scope: string): string => `${prefix}:brk:${cipher.name(scope)}`;
  const run = (scope: string, op: "admit" | "settle" | "view", verdict = "", probe = false): Promise<unknown> =>
    connection.run((redis) => (redis as unknown as { eoaBreaker: BreakerCommand }).eoaBreaker(
      keyOf(scope), op, settings.minFailures, settings.failureRatio, settings.windowMs, settings.openMs, settings.probeLeaseMs,
      verdict, probe ? 1 : 0, PROBE_RETRY_MS,
    ));
  return {
    async admit(scope): Promise<BreakerAdmission> {
      const [answer, retryAfterMs] = (await run(scope, "admit")) as [string, number];
      if (answer === "allowed" || answer === "probe") return { allowed: true, probe: answer === "probe" };
      return { allowed: false, retryAfterMs: Number(retryAfterMs), state: answer === "open" ? "open" : "half_open" };
    },
    async settle(scope, verdict: BreakerVerdict, probe): Promise<BreakerTransition> {
      const changed = await run(scope, "settle", verdict, probe);
      return changed === "opened" || changed === "closed" ? changed : undefined;
    },
    async view(scope) {
      const [state, retryAfterMs] = (await run(scope, "view")) as [BreakerStateName, number];
      return { state, retryAfterMs: Number(retryAfterMs) };
    },
  };
}
