/**
 * `redisFleet` options, checked all at once into one ConfigurationError.
 */
import { ProblemList } from "../core/configuration-error.js";
import type { Logger } from "../core/logger.js";
import { readSecret, type FleetSecret } from "./secret.js";
import { circuitBreakerOption, type CircuitBreakerOptions } from "./breaker-options.js";
import { launchLimitOption, type LaunchLimitOptions } from "./launch-limit-options.js";
import { foldRenames, type Rename } from "../core/deprecation.js";
import { defaultsOf, optional, pattern, ratio, readOptions, readUrl, refuseUnknown, wholeNumber, withDefault } from "../core/option-schema.js";

export interface RedisFleetOptions {
  /** `redis://[user:password@]host:6379[/db]` or `rediss://…` for TLS. Required, no default. */
  url: string | undefined;
  /**
   * At least 32 random bytes as base64, base64url or hex (`openssl rand -base64 48`), the
   * same on every instance; a passphrase is refused. Keys derived from it (HKDF-SHA-256)
   * seal what is private or decides who gets a token (prepared tokens, launch outcomes,
   * plan inputs and progress: AES-256-GCM), authenticate a plan's per-student marks
   * (HMAC) and name Redis keys (HMAC), so nothing written to Redis without it is used.
   * To rotate, pass a list `[{ id, secret }, …]`: the first seals, the others still open
   * what was sealed under them (a plain string is `{ id: "default", secret }`; steps in
   * docs/fleet.md). Required, no default.
   */
  secret: string | FleetSecret[] | undefined;
  /** Put before every Redis key (`<prefix>:…`), so several apps can share one Redis. Default `"eoa"`. */
  prefix?: string;
  /**
   * How many instances share the key. While Redis is unreachable each instance falls back
   * to an in-process budget of `rateLimitPerMinute ÷ expectedInstances` requests per window. Default 4.
   */
  expectedInstances?: number;
  /**
   * Requests per window the shared budget allows per API key: the same option, and the
   * same default, as the client's. Default: each key's own, by its environment (60 for a
   * `svc_test_`/`ct_test_` key, 600 for `svc_live_`/`ct_live_`), or the client's
   * `rateLimitPerMinute` when the app set it there; a default is replaced by the limit
   * the platform states in `X-RateLimit-Limit` (higher or lower), a value set here is
   * only narrowed by a lower one.
   */
  rateLimitPerMinute?: number;
  /**
   * @deprecated Use `rateLimitPerMinute` (the client's name for the same limit). Still
   * read, with one warning at start-up; giving both is a configuration error.
   */
  rateLimit?: number;
  /** The budget's window, ms. Default 60 000. A shorter real window shown by the platform's headers wins. */
  rateWindowMs?: number;
  /** Calls one instance has in flight at once. Default 16. */
  maxConcurrency?: number;
  /** Share of the window kept free for launches while one is waiting, fleet-wide. Default 0.2. */
  launchShare?: number;
  /**
   * Share of the window kept for normal-priority (instructor) calls during a launch storm,
   * fleet-wide: while fewer than ⌈normalShare × rateLimitPerMinute⌉ normal calls were sent (or hold
   * a slot) in the last window, a normal call queues ahead of the launches waiting, so it
   * waits for one freed slot at most. From 0 (launches always first) up to 1. Default 0.1.
   */
  normalShare?: number;
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
  /**
   * How long a pre-warm plan's progress and per-student marks stay in Redis after their
   * last change, ms (the instructor's progress view reads them after the exam).
   * Default 21 600 000 (six hours).
   */
  planProgressTtlMs?: number;
  /**
   * Per-student sign-in limit, fleet-wide: a burst, then one per `refillMs`; failed calls
   * count too, and start a backoff (`failureBackoffMs`, doubling per failure in a row, at
   * most `maxFailureBackoffMs`). Default `{ burst: 3, refillMs: 60 000, failureBackoffMs:
   * 2 000, maxFailureBackoffMs: 60 000 }`.
   */
  launchLimit?: LaunchLimitOptions;
  /**
   * The platform's circuit breaker, fleet-wide (one per API key and endpoint): it opens
   * when at least `minFailures` calls within `windowMs` failed and they were at least
   * `failureRatio` of the calls; stays open `openMs`; then one probe at a time (lease
   * `probeLeaseMs`) closes or reopens it. Default `{ minFailures: 5, failureRatio: 0.5,
   * windowMs: 30 000, openMs: 15 000, probeLeaseMs: 30 000 }`.
   */
  circuitBreaker?: CircuitBreakerOptions;
  /**
   * Where the fleet says that Redis went away and came back (one line each), and that it
   * refused a value in Redis (`event: "fleet_value_refused"`, one warn line per value,
   * never the value). Default: silent.
   */
  logger?: Partial<Logger>;
}

/**
 * The options read: the schema's fields (the deprecated `rateLimit` folded into
 * `rateLimitPerMinute`, which is what to read: undefined, each key's own), `keys` (the
 * decoded secrets, the sealing one first) and the parts.
 */
export type FleetSettings = ReturnType<typeof readFleetOptions>;

/**
 * `redisFleet`'s options as a schema: type, range, unit and default of each, in the order
 * problems are listed. `url` and `secret` (required) are read before it.
 */
export const redisFleetSchema = {
  prefix: withDefault(pattern(/^[A-Za-z0-9_.-]{1,40}$/, "must be 1-40 letters, digits, _ . or -."), "eoa"),
  expectedInstances: withDefault(wholeNumber(1), 4),
  rateWindowMs: withDefault(wholeNumber(1000, undefined, "ms"), 60_000),
  maxConcurrency: withDefault(wholeNumber(1), 16),
  commandTimeoutMs: withDefault(wholeNumber(10, undefined, "ms"), 500),
  attemptLeaseMs: withDefault(wholeNumber(100, undefined, "ms"), 10_000),
  outcomeTtlMs: withDefault(wholeNumber(1000, undefined, "ms"), 120_000),
  claimGraceMs: withDefault(wholeNumber(0, undefined, "ms"), 5_000),
  planLeaseMs: withDefault(wholeNumber(100, undefined, "ms"), 15_000),
  planProgressTtlMs: withDefault(wholeNumber(1000, undefined, "ms"), 6 * 60 * 60_000),
  /** Default: each key's own, by its environment. */
  rateLimitPerMinute: optional(wholeNumber(1, undefined, "requests per window"), { fix: "Leave it out for each key's own limit (dev 60, prod 600)." }),
  /** @deprecated alias of `rateLimitPerMinute`. */
  rateLimit: optional(wholeNumber(1, undefined, "requests per window"), { fix: "Rename it rateLimitPerMinute (rateLimit is deprecated), or leave it out." }),
  launchShare: withDefault(ratio(0, 1, { maxExclusive: true }), 0.2),
  normalShare: withDefault(ratio(0, 1), 0.1),
  launchLimit: launchLimitOption,
  circuitBreaker: circuitBreakerOption,
};

/**
 * The fleet's defaults, from the schema: the in-process fleet and the launch attempts read
 * them too (the launch limit's and the circuit breaker's live beside their settings types:
 * `DEFAULT_LAUNCH_LIMIT`, `DEFAULT_BREAKER_SETTINGS`).
 */
export const FLEET_DEFAULTS = defaultsOf(redisFleetSchema);

/** `redisFleet`'s earlier names. */
export const FLEET_RENAMES: Rename[] = [{ old: "rateLimit", use: "rateLimitPerMinute", code: "EOA_FLEET_RATE_LIMIT",
  message: "redisFleet's rateLimit is deprecated: call it rateLimitPerMinute, the platform client's name for the same limit." }];

/** Every option's name (checked against `RedisFleetOptions`): any other is a typo, refused with the name meant. */
const OPTION_NAMES = Object.keys({
  url: true, secret: true, prefix: true, expectedInstances: true, rateLimitPerMinute: true, rateLimit: true, rateWindowMs: true, maxConcurrency: true,
  launchShare: true, normalShare: true, commandTimeoutMs: true, attemptLeaseMs: true, outcomeTtlMs: true, claimGraceMs: true, planLeaseMs: true,
  planProgressTtlMs: true, launchLimit: true, circuitBreaker: true, logger: true,
} satisfies Record<keyof RedisFleetOptions, true>);

export function readFleetOptions(options: RedisFleetOptions) {
  const problems = new ProblemList();
  const o = (options ?? {}) as Partial<RedisFleetOptions>;
  if (typeof o === "object") refuseUnknown(o, OPTION_NAMES, problems);
  // Not shown in a message: a Redis URL may hold a password.
  const fix = "Pass the Redis URL, e.g. url: process.env.REDIS_URL (redis://host:6379).";
  const url = readUrl(o.url, "url", problems, fix, "is missing.", () => "is not a URL.");
  if (url && url.protocol !== "redis:" && url.protocol !== "rediss:") {
    problems.add("url", "must start with redis:// or rediss://.", "Pass a Redis URL such as redis://127.0.0.1:6379.");
  }
  const keys = readSecret(o.secret, problems);
  const read = readOptions(redisFleetSchema, o, problems);
  foldRenames(o, FLEET_RENAMES, problems, "", read);
  problems.throwIfAny("redisFleet");
  return { ...read, url: o.url as string, keys };
}
