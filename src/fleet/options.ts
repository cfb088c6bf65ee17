/**
 * `redisFleet` options, checked all at once into one ConfigurationError.
 */
import { ProblemList } from "../core/configuration-error.js";
import type { Logger } from "../core/logger.js";

export interface RedisFleetOptions {
  /** `redis://[user:password@]host:6379[/db]` or `rediss://…` for TLS. Required, no default. */
  url: string | undefined;
  /**
   * At least 32 characters of secret shared by every instance: prepared tokens and launch
   * outcomes are encrypted at rest with a key derived from it (HKDF-SHA-256 → AES-256-GCM),
   * and student identities are hashed with it before they become Redis keys. Required.
   */
  secret: string | undefined;
  /** Put before every Redis key (`<prefix>:…`), so several apps can share one Redis. Default `"eoa"`. */
  prefix?: string;
  /**
   * How many instances share the key. While Redis is unreachable each instance falls back
   * to an in-process budget of `rateLimit ÷ expectedInstances` requests per window. Default 4.
   */
  expectedInstances?: number;
  /** Requests per window the shared budget allows per API key (a lower platform-reported limit wins). Default 60 (the dev key's limit). */
  rateLimit?: number;
  /** The budget's window, ms. Default 60 000. A shorter real window shown by the platform's headers wins. */
  rateWindowMs?: number;
  /** Calls one instance has in flight at once. Default 16. */
  maxConcurrency?: number;
  /** Share of the window kept free for launches while one is waiting, fleet-wide. Default 0.2. */
  launchShare?: number;
  /** Timeout of each Redis command, ms: past it the instance falls back instead of hanging. Default 500. */
  commandTimeoutMs?: number;
  /** Lease of an attempt's owner, ms: if the owner dies, another instance takes over after it. Default 10 000. */
  attemptLeaseMs?: number;
  /** How long a launch attempt's outcome stays readable, ms. Default 120 000. */
  outcomeTtlMs?: number;
  /** Claims of one token outcome within this long of the first get the token too (a double click split across instances), ms. Default 5 000. */
  claimGraceMs?: number;
  /** Lease of the pre-warm plan's leader, ms. Default 15 000. */
  planLeaseMs?: number;
  /** Per-student sign-in limit (burst, then one per `refillMs`). Default `{ burst: 3, refillMs: 60 000 }`. */
  launchLimit?: { burst?: number; refillMs?: number };
  /** Where the fleet says that Redis went away and came back (one line each). Default: silent. */
  logger?: Partial<Logger>;
}

export interface FleetSettings {
  url: string;
  secret: string;
  prefix: string;
  expectedInstances: number;
  rateLimit: number;
  rateWindowMs: number;
  maxConcurrency: number;
  launchShare: number;
  commandTimeoutMs: number;
  attemptLeaseMs: number;
  outcomeTtlMs: number;
  claimGraceMs: number;
  planLeaseMs: number;
  launchLimit: { burst: number; refillMs: number };
}

export const MIN_SECRET_LENGTH = 32;
const PREFIX = /^[A-Za-z0-9_.-]{1,40}$/;

const whole = (v: unknown, min: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min;

export function readFleetOptions(options: RedisFleetOptions): FleetSettings {
  const problems = new ProblemList();
  const o = (options ?? {}) as Partial<RedisFleetOptions>;
  if (typeof o.url !== "string" || o.url === "") {
    problems.add("url", "is missing.", "Pass the Redis URL, e.g. url: process.env.REDIS_URL (redis://host:6379).");
  } else if (!/^rediss?:\/\//.test(o.url)) {
    problems.add("url", "must start with redis:// or rediss://.", "Pass a Redis URL such as redis://127.0.0.1:6379.");
  }
  if (typeof o.secret !== "string" || o.secret === "") {
    problems.add("secret", "is missing.", `Pass a random secret of at least ${MIN_SECRET_LENGTH} characters shared by every instance (e.g. \`openssl rand -base64 48\`).`);
  } else if (o.secret.length < MIN_SECRET_LENGTH) {
    problems.add("secret", `is too short (${o.secret.length} characters).`, `Use at least ${MIN_SECRET_LENGTH} random characters (e.g. \`openssl rand -base64 48\`).`);
  }
  const prefix = o.prefix ?? "eoa";
  if (typeof prefix !== "string" || !PREFIX.test(prefix)) problems.add("prefix", "must be 1-40 letters, digits, _ . or -.", 'Omit it for "eoa".');
  const numbers: [keyof RedisFleetOptions, unknown, number][] = [
    ["expectedInstances", o.expectedInstances ?? 4, 1], ["rateLimit", o.rateLimit ?? 60, 1],
    ["rateWindowMs", o.rateWindowMs ?? 60_000, 1000], ["maxConcurrency", o.maxConcurrency ?? 16, 1],
    ["commandTimeoutMs", o.commandTimeoutMs ?? 500, 10], ["attemptLeaseMs", o.attemptLeaseMs ?? 10_000, 100],
    ["outcomeTtlMs", o.outcomeTtlMs ?? 120_000, 1000], ["claimGraceMs", o.claimGraceMs ?? 5_000, 0], ["planLeaseMs", o.planLeaseMs ?? 15_000, 100],
  ];
  for (const [name, value, min] of numbers) {
    if (!whole(value, min)) problems.add(name, `must be a whole number of at least ${min}.`, "Omit it for the default.");
  }
  const share = o.launchShare ?? 0.2;
  if (typeof share !== "number" || !(share >= 0 && share < 1)) problems.add("launchShare", "must be a number from 0 up to (not including) 1.", "Omit it for 0.2.");
  const burst = o.launchLimit?.burst ?? 3;
  const refillMs = o.launchLimit?.refillMs ?? 60_000;
  if (!whole(burst, 1)) problems.add("launchLimit.burst", "must be a whole number of at least 1.", "Omit it for 3.");
  if (!whole(refillMs, 1)) problems.add("launchLimit.refillMs", "must be a whole number of ms, at least 1.", "Omit it for 60 000.");
  problems.throwIfAny("redisFleet");
  return {
    url: o.url as string, secret: o.secret as string, prefix,
    expectedInstances: o.expectedInstances ?? 4, rateLimit: o.rateLimit ?? 60, rateWindowMs: o.rateWindowMs ?? 60_000,
    maxConcurrency: o.maxConcurrency ?? 16, launchShare: share, commandTimeoutMs: o.commandTimeoutMs ?? 500,
    attemptLeaseMs: o.attemptLeaseMs ?? 10_000, outcomeTtlMs: o.outcomeTtlMs ?? 120_000, claimGraceMs: o.claimGraceMs ?? 5_000, planLeaseMs: o.planLeaseMs ?? 15_000,
    launchLimit: { burst, refillMs },
  };
}
