/**
 * Plan leases in Redis: `SET <leader> <holder> NX PX <lease>` to lead, compare-and-extend
 * and compare-and-delete in Lua (only the holder renews or resigns), progress in a hash
 * with a TTL (HINCRBY for counters, so several writers never lose an update). A plan's
 * input (exam, class, roster: never tokens) is a key with a TTL until the plan's end,
 * listed in one sorted set of active plans scored by that end.
 *
 * What decides who gets a token, or names a student, is protected (cipher.ts), bound to
 * its key and field: the input and the recorded progress fields (the leader's snapshot)
 * are sealed; the per-student marks sit in their own hash, fields named by a keyed hash
 * of (plan, student), values signed. A value that fails its check is refused and logged:
 * a plan whose input fails is not run, a progress field or mark that fails is ignored.
 * Counters stay plain: they are figures, nothing decides on them.
 *
 * Across a secret switch, marks are read under the names of every listed secret; they
 * are written under the first secret's.
 */
import type { Cipher } from "./cipher.js";
import type { FleetConnection } from "./connection.js";
import type { PlanLeaseStore, PlanLeaseTimings, StudentMarks } from "./plan-lease.js";
import type { Refusals } from "./refused.js";

/** ARGV: holder, leaseMs → 1 if holder leads now. */
const LEAD = `
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
/** ARGV: holder, leaseMs → 1 if renewed. */
const RENEW = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;
/** ARGV: holder. */
const RESIGN = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

const SCRIPTS = { planLead: LEAD, planRenew: RENEW, planResign: RESIGN };
type Name = keyof typeof SCRIPTS;

export function definePlanScripts(define: (name: string, lua: string, keys: number) => void): void {
  for (const [name, lua] of Object.entries(SCRIPTS)) define(name, lua, 1);
}

/** The marks' field prefixes: a token stored (its usableUntil), handed out, launched on demand. */
const MARK = { stored: "u", handedOut: "h", onDemand: "d" } as const;
/** Students whose mark names are kept, so a leader does not recompute its roster's HMACs at every renewal; past it the cache starts afresh. */
const NAMES_KEPT = 50_000;

export function redisPlanLeases(connection: FleetConnection, cipher: Cipher, refused: Refusals, prefix: string, timings: PlanLeaseTimings): PlanLeaseStore {
  const leaderKey = (planId: string): string => `${prefix}:plan:{${planId}}:leader`;
  const progressKey = (planId: string): string => `${prefix}:plan:{${planId}}:progress`;
  const marksKey = (planId: string): string => `${prefix}:plan:{${planId}}:marks`;
  const inputKey = (planId: string): string => `${prefix}:plan:{${planId}}:input`;
  const aad = (key: string, field: string): string => `${key}\u0000${field}`;
  const names = new Map<string, string[]>();
  /** A student's mark names under every listed secret (the first secret's first). */
  const namesOf = (planId: string, userKey: string): string[] => {
    const student = `${planId}\u0000${userKey}`;
    let found = names.get(student);
    if (!found) {
      if (names.size >= NAMES_KEPT) names.clear();
      names.set(student, (found = cipher.names(student)));
    }
    return found;
  };
  const setMark = async (planId: string, userKey: string, kind: string, value: string): Promise<void> => {
    const key = marksKey(planId);
    const field = `${kind}:${namesOf(planId, userKey)[0]!}`;
    await connection.run((redis) => redis.multi().hset(key, field, cipher.sign(value, aad(key, field))).pexpire(key, timings.progressTtlMs).exec());
  };
  const activeKey = `${prefix}:plans:active`;
  const run = (name: Name, key: string, ...args: (string | number)[]): Promise<unknown> =>
    connection.run((redis) => (redis as unknown as Record<Name, (...a: (string | number)[]) => Promise<unknown>>)[name](key, ...args));
  return {
    async lead(planId, holder) {
      return (await run("planLead", leaderKey(planId), holder, timings.leaseMs)) === 1;
    },
    async renew(planId, holder) {
      return (await run("planRenew", leaderKey(planId), holder, timings.leaseMs)) === 1;
    },
    async resign(planId, holder) {
      await run("planResign", leaderKey(planId), holder);
    },
    async leader(planId) {
      return (await connection.run((redis) => redis.get(leaderKey(planId)))) ?? undefined;
    },
    async count(planId, deltas) {
      const key = progressKey(planId);
      await connection.run((redis) => {
        const multi = redis.multi();
        for (const [name, delta] of Object.entries(deltas)) multi.hincrby(key, `n:${name}`, delta);
        return multi.pexpire(key, timings.progressTtlMs).exec();
      });
    },
    async record(planId, fields) {
      const key = progressKey(planId);
      const flat = Object.entries(fields).flatMap(([name, value]) => [`s:${name}`, cipher.seal(JSON.stringify(value), aad(key, `s:${name}`))]);
      await connection.run((redis) => redis.multi().hset(key, ...flat).pexpire(key, timings.progressTtlMs).exec());
    },
    async progress(planId) {
      const key = progressKey(planId);
      const raw = await connection.run((redis) => redis.hgetall(key));
      const out: Record<string, string | number> = {};
      for (const [field, value] of Object.entries(raw)) {
        const name = field.slice(2);
        if (field.startsWith("n:")) out[name] = Number(value);
        else if (field.startsWith("s:")) {
          const plain = cipher.open(value, aad(key, field));
          if (plain === undefined) refused.report("plan progress", key, value);
          else out[name] = JSON.parse(plain) as string | number;
        }
      }
      return out;
    },
    markStored: (planId, userKey, usableUntil) => setMark(planId, userKey, MARK.stored, String(usableUntil)),
    markTaken: (planId, userKey, how) => setMark(planId, userKey, MARK[how], "1"),
    async marks(planId, userKeys, only) {
      const key = marksKey(planId);
      const kinds = only === "taken" ? [MARK.handedOut, MARK.onDemand] : Object.values(MARK);
      const wanted = userKeys.flatMap((userKey) => namesOf(planId, userKey).flatMap((name) =>
        kinds.map((kind) => ({ userKey, kind, field: `${kind}:${name}` }))));
      const out = new Map<string, StudentMarks>();
      if (wanted.length === 0) return out;
      const values = await connection.run((redis) => redis.hmget(key, ...wanted.map((w) => w.field)));
      wanted.forEach(({ userKey, kind, field }, i) => {
        const signed = values[i];
        if (signed === null || signed === undefined) return;
        const value = cipher.verify(signed, aad(key, field));
        if (value === undefined) return refused.report("plan mark", key, signed);
        const student = out.get(userKey) ?? {};
        if (kind === MARK.stored) student.usableUntil = Math.max(student.usableUntil ?? 0, Number(value));
        else if (student.taken !== "handedOut") student.taken = kind === MARK.handedOut ? "handedOut" : "onDemand";
        out.set(userKey, student);
      });
      return out;
    },
    async publish(planId, input, untilMs) {
      const ttl = Math.floor(untilMs - Date.now());
      if (ttl <= 0) return;
      const key = inputKey(planId);
      await connection.run((redis) => redis.set(key, cipher.seal(input, key), "PX", ttl));
      // The list of plans expires with the last plan in it (NX: it had no lifetime yet; GT: a later plan extends it).
      await connection.run((redis) => redis.multi().zadd(activeKey, untilMs, planId).zremrangebyscore(activeKey, "-inf", Date.now())
        .pexpireat(activeKey, Math.ceil(untilMs), "NX").pexpireat(activeKey, Math.ceil(untilMs), "GT").exec());
    },
    async published(planId) {
      const key = inputKey(planId);
      const sealed = await connection.run((redis) => redis.get(key));
      if (sealed === null) return undefined;
      const input = cipher.open(sealed, key);
      if (input === undefined) refused.report("plan input", key, sealed);
      return input;
    },
    async activePlans() {
      return connection.run((redis) => redis.zrangebyscore(activeKey, Date.now(), "+inf"));
    },
  };
}
