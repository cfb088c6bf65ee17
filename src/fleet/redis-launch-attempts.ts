/**
 * Launch attempts in Redis: one hash per (exam, student), named by a keyed hash of the
 * pair, holding the current wait id, the owner's lease and, once settled, the outcome.
 * Every decision (start, join, take over, renew, complete, claim) is one Lua script,
 * timed by Redis's clock. A wait id is only honoured with the student it belongs to: the
 * key is derived from the student.
 *
 * The outcome (a token, or a failure's status and page text) is sealed with AES-256-GCM,
 * bound to the attempt's key and wait id, with when it was made: an outcome that does not
 * open (forged, edited, moved from another attempt) or is older than `outcomeTtlMs` is
 * refused and the student starts over. The plain `kind` beside it only shapes the
 * waiting page; what a claim hands out is the sealed one.
 *
 * Across a secret switch the student's key name changes: a wait id is looked up under the
 * names of every listed secret, so a refresh continues an attempt begun before the
 * switch; `begin` uses the first secret's name only (see docs/fleet.md for the cost).
 */
import type { Cipher } from "./cipher.js";
import { FLEET_DEFAULTS } from "./options.js";
import type { FleetConnection } from "./connection.js";
import { newLease, newWaitId, type AttemptOutcome, type AttemptTimings, type AttemptView, type LaunchAttemptStore } from "./launch-attempts.js";
import type { Refusals } from "./refused.js";

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function field(name) return redis.call('HGET', KEYS[1], name) end
local function own(lease, leaseMs, ttl)
  redis.call('HSET', KEYS[1], 'lease', lease, 'leaseUntil', now + tonumber(leaseMs))
  if redis.call('PTTL', KEYS[1]) < tonumber(ttl) then redis.call('PEXPIRE', KEYS[1], ttl) end
  return lease
end
local function mine(waitId) return field('waitId') == waitId end
-- The settled attempt a new one replaced, readable by its wait id for the claim grace.
local function replaced(waitId) return field('prevWaitId') == waitId and now <= tonumber(field('prevUntil') or '0') end
`;

/**
 * ARGV: newWaitId, newLease, leaseMs, ttlMs, graceMs → { waitId, lease | nil }. Replacing a
 * settled attempt keeps its outcome under prev* for graceMs: the requests that joined it
 * still get it (VIEW and CLAIM read it by its wait id).
 */
const BEGIN = `${NOW}
local state = field('state')
if state == 'running' then
  if tonumber(field('leaseUntil')) <= now then return { field('waitId'), own(ARGV[2], ARGV[3], ARGV[4]) } end
  return { field('waitId'), false }
end
if state == 'done' and field('kind') == 'token' and field('claimed') == '0' then return { field('waitId'), false } end
local prev = false
if state == 'done' then
  prev = { 'prevWaitId', field('waitId'), 'prevKind', field('kind'), 'prevOutcome', field('outcome') or '',
    'prevClaimed', field('claimed') or '0', 'prevClaimedAt', field('claimedAt') or '0', 'prevUntil', now + tonumber(ARGV[5]) }
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'waitId', ARGV[1], 'state', 'running', 'claimed', '0')
if prev then redis.call('HSET', KEYS[1], unpack(prev)) end
return { ARGV[1], own(ARGV[2], ARGV[3], ARGV[4]) }
`;

/**
 * ARGV: waitId, lease, leaseMs, ttlMs → 1 | 0. Puts back a lost attempt under its own wait
 * id, owned by the instance running its call; not over the student's live attempt (running
 * with a live lease, or an unclaimed token), nor over this wait id's own record, unless
 * that still holds the caller's lease (Redis kept it through an outage): then it is
 * renewed.
 */
const ADOPT = `${NOW}
if mine(ARGV[1]) then
  if field('state') ~= 'running' or field('lease') ~= ARGV[2] then return 0 end
  redis.call('HSET', KEYS[1], 'leaseUntil', now + tonumber(ARGV[3]))
  return 1
end
if replaced(ARGV[1]) then return 0 end
local state = field('state')
if state == 'running' and tonumber(field('leaseUntil')) > now then return 0 end
if state == 'done' and field('kind') == 'token' and field('claimed') == '0' then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'waitId', ARGV[1], 'state', 'running', 'claimed', '0')
own(ARGV[2], ARGV[3], ARGV[4])
return 1
`;

/** ARGV: waitId, lease, leaseMs → 1 | 0. */
const RENEW = `${NOW}
if not mine(ARGV[1]) or field('state') ~= 'running' or field('lease') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'leaseUntil', now + tonumber(ARGV[3]))
return 1
`;

/** ARGV: waitId, lease, ttlMs, kind, sealedOutcome → 1 | 0. */
const COMPLETE = `${NOW}
if not mine(ARGV[1]) or field('state') ~= 'running' or field('lease') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'kind', ARGV[4], 'outcome', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** ARGV: waitId → { state, leaseLapsed, kind, claimed } | nil. */
const VIEW = `${NOW}
if not mine(ARGV[1]) then
  if replaced(ARGV[1]) then return { 'done', 0, field('prevKind'), field('prevClaimed') } end
  return false
end
local lapsed = 0
if field('state') == 'running' and tonumber(field('leaseUntil')) <= now then lapsed = 1 end
return { field('state'), lapsed, field('kind') or '', field('claimed') }
`;

/** ARGV: waitId, newLease, leaseMs, ttlMs → lease | nil. */
const TAKE_OVER = `${NOW}
if not mine(ARGV[1]) or field('state') ~= 'running' or tonumber(field('leaseUntil')) > now then return false end
return own(ARGV[2], ARGV[3], ARGV[4])
`;

/** ARGV: waitId, graceMs → sealed outcome | nil; marks a token claimed in the same step (claims within graceMs of the first get it too). */
const CLAIM = `${NOW}
if not mine(ARGV[1]) then
  if not replaced(ARGV[1]) then return false end
  -- Only a claimed token is replaced, so its claim is within the grace or nothing.
  if field('prevKind') == 'token' and now - tonumber(field('prevClaimedAt') or '0') > tonumber(ARGV[2]) then return false end
  return field('prevOutcome')
end
if field('state') ~= 'done' then return false end
if field('kind') == 'token' then
  if field('claimed') ~= '0' then
    if now - tonumber(field('claimedAt') or '0') > tonumber(ARGV[2]) then return false end
  else
    redis.call('HSET', KEYS[1], 'claimed', '1', 'claimedAt', now)
  end
end
return field('outcome')
`;

const SCRIPTS = { attBegin: BEGIN, attAdopt: ADOPT, attRenew: RENEW, attComplete: COMPLETE, attView: VIEW, attTakeOver: TAKE_OVER, attClaim: CLAIM };
type Name = keyof typeof SCRIPTS;

export function defineAttemptScripts(define: (name: string, lua: string, keys: number) => void): void {
  for (const [name, lua] of Object.entries(SCRIPTS)) define(name, lua, 1);
}

/** Instances' clocks differ a little: an outcome is refused as replayed only this long past its last legitimate claim. */
const CLOCK_SKEW_MS = 5_000;

/** What a sealed outcome holds: the outcome, and when it was stored (ms, the storing instance's clock). */
interface SealedOutcome {
  o: AttemptOutcome;
  at: number;
}

const isOutcome = (o: Partial<AttemptOutcome> | undefined): o is AttemptOutcome =>
  (o?.kind === "token" && typeof o.token === "string") || (o?.kind === "failed" && typeof o.status === "number" && typeof o.detail === "string");

export function redisLaunchAttempts(connection: FleetConnection, cipher: Cipher, refused: Refusals, prefix: string, timings: AttemptTimings): LaunchAttemptStore {
  const claimGraceMs = timings.claimGraceMs ?? FLEET_DEFAULTS.claimGraceMs;
  const keyOf = (examId: string, userKey: string): string => `${prefix}:att:${cipher.name(`${examId}\u0000${userKey}`)}`;
  /** The student's record under every listed secret's name, the first secret's first. */
  const keysOf = (examId: string, userKey: string): string[] => cipher.names(`${examId}\u0000${userKey}`).map((name) => `${prefix}:att:${name}`);
  const run = (name: Name, key: string, ...args: (string | number)[]): Promise<unknown> =>
    connection.run((redis) => (redis as unknown as Record<Name, (...a: (string | number)[]) => Promise<unknown>>)[name](key, ...args));
  /** Runs a wait id's script on each of the student's record names until one knows the wait id. */
  const onRecordOf = async <T>(examId: string, userKey: string, script: (key: string) => Promise<T | null>): Promise<{ key: string; reply: T } | undefined> => {
    for (const key of keysOf(examId, userKey)) {
      const reply = await script(key);
      if (reply !== null) return { key, reply };
    }
    return undefined;
  };
  const unseal = (key: string, waitId: string, sealed: string): AttemptOutcome | undefined => {
    const plain = cipher.open(sealed, `${key}\u0000${waitId}`);
    if (plain === undefined) return void refused.report("attempt outcome", key, sealed);
    const { o, at } = JSON.parse(plain) as Partial<SealedOutcome>;
    if (!isOutcome(o) || typeof at !== "number") return void refused.report("attempt outcome", key, sealed, "it is not an outcome");
    if (Date.now() > at + timings.outcomeTtlMs + claimGraceMs + CLOCK_SKEW_MS) {
      return void refused.report("attempt outcome", key, sealed, "it outlived outcomeTtlMs (kept or put back by something else)");
    }
    return o;
  };
  // The record key of a wait id is only known with its student; renew/complete come from the owner, who knows both.
  const owned = new Map<string, string>();

  return {
    async begin(examId, userKey) {
      const key = keyOf(examId, userKey);
      const [waitId, lease] = await run("attBegin", key, newWaitId(), newLease(), timings.leaseMs, timings.outcomeTtlMs, claimGraceMs) as [string, string | null];
      if (lease) owned.set(waitId, key);
      return { waitId, lease: lease ?? undefined };
    },
    async adopt(waitId, examId, userKey, lease) {
      // Under the first secret's name, as `begin` does.
      const key = keyOf(examId, userKey);
      const adopted = (await run("attAdopt", key, waitId, lease, timings.leaseMs, timings.outcomeTtlMs)) === 1;
      if (adopted) owned.set(waitId, key);
      return adopted;
    },
    async renew(waitId, lease) {
      const key = owned.get(waitId);
      return key !== undefined && (await run("attRenew", key, waitId, lease, timings.leaseMs)) === 1;
    },
    async complete(waitId, lease, outcome) {
      const key = owned.get(waitId);
      if (key === undefined) return false;
      owned.delete(waitId);
      const sealed = cipher.seal(JSON.stringify({ o: outcome, at: Date.now() } satisfies SealedOutcome), `${key}\u0000${waitId}`);
      return (await run("attComplete", key, waitId, lease, timings.outcomeTtlMs, outcome.kind, sealed)) === 1;
    },
    async view(waitId, examId, userKey): Promise<AttemptView> {
      const found = await onRecordOf(examId, userKey, (key) => run("attView", key, waitId) as Promise<[string, number, string, string] | null>);
      if (!found) return { state: "unknown" };
      const [state, lapsed, kind, claimed] = found.reply;
      if (state === "running") return { state: "running", leaseLapsed: lapsed === 1 };
      return { state: "done", outcome: kind === "token" ? "token" : "failed", claimed: claimed === "1" };
    },
    async takeOver(waitId, examId, userKey) {
      const found = await onRecordOf(examId, userKey, (key) => run("attTakeOver", key, waitId, newLease(), timings.leaseMs, timings.outcomeTtlMs) as Promise<string | null>);
      if (found) owned.set(waitId, found.key);
      return found?.reply;
    },
    async claim(waitId, examId, userKey) {
      const found = await onRecordOf(examId, userKey, (key) => run("attClaim", key, waitId, claimGraceMs) as Promise<string | null>);
      return found && unseal(found.key, waitId, found.reply);
    },
  };
}
