/**
 * Plan leases in Redis: `SET <leader> <holder> NX PX <lease>` to lead, compare-and-extend
 * and compare-and-delete in Lua (only the holder renews or resigns), progress in a hash
 * with a TTL (HINCRBY for counters, so several writers never lose an update). A plan's
 * input (its roster: names and e-mails, never tokens) is a plain key with a TTL until the
 * plan's end, listed in one sorted set of active plans scored by that end.
 */
import type { FleetConnection } from "./connection.js";
import type { PlanLeaseStore, PlanLeaseTimings } from "./plan-lease.js";

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

export function redisPlanLeases(connection: FleetConnection, prefix: string, timings: PlanLeaseTimings): PlanLeaseStore {
  const leaderKey = (planId: string): string => `${prefix}:plan:{${planId}}:leader`;
  const progressKey = (planId: string): string => `${prefix}:plan:{${planId}}:progress`;
  const inputKey = (planId: string): string => `${prefix}:plan:{${planId}}:input`;
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
      const flat = Object.entries(fields).flatMap(([name, value]) => [`s:${name}`, typeof value === "number" ? `#${value}` : value]);
      await connection.run((redis) => redis.multi().hset(key, ...flat).pexpire(key, timings.progressTtlMs).exec());
    },
    async progress(planId) {
      const raw = await connection.run((redis) => redis.hgetall(progressKey(planId)));
      const out: Record<string, string | number> = {};
      for (const [field, value] of Object.entries(raw)) {
        const name = field.slice(2);
        if (field.startsWith("n:")) out[name] = Number(value);
        else out[name] = value.startsWith("#") ? Number(value.slice(1)) : value;
      }
      return out;
    },
    async publish(planId, input, untilMs) {
      const ttl = Math.floor(untilMs - Date.now());
      if (ttl <= 0) return;
      await connection.run((redis) => redis.set(inputKey(planId), input, "PX", ttl));
      await connection.run((redis) => redis.multi().zadd(activeKey, untilMs, planId).zremrangebyscore(activeKey, "-inf", Date.now()).exec());
    },
    async published(planId) {
      return (await connection.run((redis) => redis.get(inputKey(planId)))) ?? undefined;
    },
    async activePlans() {
      return connection.run((redis) => redis.zrangebyscore(activeKey, Date.now(), "+inf"));
    },
  };
}
