/**
 * The shared budget's scripts as commands on the fleet's Redis client (`defineCommand`),
 * and how one key's budget runs them on its window's keys (what each key holds:
 * rate-budget-prelude.ts; the scripts: rate-budget-acquire.ts, rate-budget-scripts.ts,
 * and fallback-calls.ts for ADOPT).
 */
import type { Redis as RedisClient } from "ioredis";
import type { FleetConnection } from "./connection.js";
import { ADOPT } from "./fallback-calls.js";
import { ABANDON, ACQUIRE, BUDGET_KEYS, OBSERVE, PAUSE, RELEASE, STATS } from "./rate-budget-scripts.js";

/** What the scripts return: [waitMs, status, sentInWindow, pausedForMs, serverRemaining, windowMs, epoch]. */
export type Reply = [number, number, number, number, number, number, string];
type Scripted = RedisClient & Record<"eoaAcquire" | "eoaRelease" | "eoaAbandon" | "eoaPause" | "eoaObserve" | "eoaStats" | "eoaAdopt", (...args: (string | number)[]) => Promise<unknown>>;

/** Runs one of the budget's scripts on one key's window: `args` are its ARGV. */
export type BudgetScript = (name: keyof Scripted & `eoa${string}`, ...args: (string | number)[]) => Promise<unknown>;

/** Defines the budget's scripts on a client (`redis.defineCommand`). */
export function defineBudgetScripts(define: (name: string, lua: string, keys: number) => void): void {
  for (const [name, lua] of Object.entries({ eoaAcquire: ACQUIRE, eoaRelease: RELEASE, eoaAbandon: ABANDON, eoaPause: PAUSE, eoaObserve: OBSERVE, eoaStats: STATS, eoaAdopt: ADOPT })) {
    define(name, lua, BUDGET_KEYS);
  }
}

/** The scripts on the window `budgetId` names under `prefix` (its keys share one hash tag). */
export function budgetScript(connection: FleetConnection, prefix: string, budgetId: string): BudgetScript {
  const base = `${prefix}:{rb:${budgetId}}`;
  const keys = ["window", "flight", "launches", "pause", "server", "meta", "normals", "kept", "epoch", "probe", "sends", "line", "left"].map((k) => `${base}:${k}`);
  return (name, ...args) => connection.run((redis) => (redis as Scripted)[name](...keys, ...args));
}

/**
 * The scripts' `limit` argument: a limit the platform's stated `X-RateLimit-Limit`
 * replaces (a key environment's default, `learnLimit`) goes negative, so the scripts take
 * the stated one higher or lower; a limit the integrator set goes as is, and a lower
 * stated one only narrows it.
 */
export function scriptLimit(settings: { limit: number; learnLimit?: boolean }): number {
  return settings.learnLimit ? -settings.limit : settings.limit;
}
