/**
 * A shared budget's settings (redis-rate-budget.ts), and one key's limit among them: the
 * fleet's when set, else what the key's client resolved, else the dev key's default.
 */
import { DEFAULT_RATE_LIMITS } from "../platform/options.js";
import type { KeyLimit } from "../platform/rate-budget.js";
import type { FleetSettings } from "./options.js";

/** `redisFleet`'s settings the budget reads as they are (their types from its schema), and the key's own. */
export type SharedBudgetSettings = Pick<FleetSettings, "prefix" | "maxConcurrency" | "launchShare" | "normalShare" | "expectedInstances"> & {
  /** Requests per window for this budget's key. */
  limit: number;
  /** `limit` is a default (the key environment's): the platform's stated limit replaces it, higher or lower. */
  learnLimit?: boolean;
  /** `redisFleet`'s `rateLimitPerMinute` when set: every key's limit, whatever its client says. */
  fleetLimit?: number | undefined;
  windowMs: number;
  /** The Redis name of a key's window, from the key's hash (an HMAC under the fleet secret). */
  nameKey: (keyHash: string) => string;
  /**
   * The window's name may just have changed (a secret rotation in progress): a window
   * found new is then taken to be full for one window length, as after a Redis restart.
   */
  renamed: boolean;
};

/**
 * One key's limit: the fleet's `rateLimitPerMinute` when set; else the one its client
 * resolved (the client's `rateLimitPerMinute`, or its key environment's default, which
 * the platform's stated limit replaces); else the dev key's default, learnt the same way.
 */
export function keyLimitSettings(fleetLimit: number | undefined, keyLimit: KeyLimit | undefined): { limit: number; learnLimit: boolean } {
  if (fleetLimit !== undefined) return { limit: fleetLimit, learnLimit: false };
  if (keyLimit !== undefined) return { limit: keyLimit.perWindow, learnLimit: !keyLimit.stated };
  return { limit: DEFAULT_RATE_LIMITS.dev, learnLimit: true };
}
