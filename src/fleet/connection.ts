/**
 * The fleet's Redis connection and its health.
 *
 * Client: ioredis. Chosen over node-redis v5 because it gives, as plain options, what a
 * fleet that must never hang needs: `commandTimeout` (each command rejects after a short
 * time), `enableOfflineQueue: false` + `maxRetriesPerRequest: 0` (while disconnected a
 * command fails at once instead of queueing without bound), a `retryStrategy` that keeps
 * reconnecting in the background, and `defineCommand` for Lua scripts sent by EVALSHA
 * with an automatic EVAL fallback after a Redis restart (SCRIPT cache lost). It is an
 * optional peer dependency, loaded lazily like `pg`: apps without fleet mode never need it.
 *
 * Health: the first failure (a lost connection or a timed-out command) logs one warning
 * and flips `up` to false, so callers use their in-process fallback; a PING every second
 * (in the background, unref'd) flips it back and logs one info line. No other log lines.
 */
import type { Redis as RedisClient } from "ioredis";
import { ConfigurationError } from "../core/configuration-error.js";
import type { Logger } from "../core/logger.js";

export interface FleetConnection {
  /** The client once loaded (undefined until `ready` resolves, or if loading failed). */
  readonly redis: RedisClient | undefined;
  /** True while Redis answers; false after a failure until a PING succeeds again. */
  readonly up: boolean;
  /**
   * When Redis was last found again after being away (ms since epoch, local clock; 0 before
   * the first outage): state kept in Redis before then may have been lost meanwhile.
   */
  readonly backSince: number;
  /** Resolves once the client exists (not once it connected: the fleet starts without Redis too). */
  readonly ready: Promise<void>;
  /**
   * Calls `listener` each time Redis is found again (`up` turns true), synchronously, before
   * anything else can see `up` true: what runs on the fallback must stop at that instant.
   * Returns a function that removes it.
   */
  onUp(listener: () => void): () => void;
  /** Runs a Redis operation; a failure marks Redis down and rethrows. */
  run<T>(op: (redis: RedisClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const PROBE_EVERY_MS = 1000;

export function connect(url: string, commandTimeoutMs: number, logger: Logger, setup: (redis: RedisClient) => void): FleetConnection {
  let redis: RedisClient | undefined;
  let up = false;
  let closed = false;
  let backSince = 0;
  let probe: NodeJS.Timeout | undefined;
  /** Whether the "down" line was logged and the "back" line is owed. */
  let loggedDown = false;
  const upListeners = new Set<() => void>();

  const markDown = (reason: string): void => {
    if (closed) return;
    up = false;
    if (!loggedDown) {
      loggedDown = true;
      logger.warn({ event: "fleet_redis_down", reason }, "Redis is unreachable: this instance uses its in-process fallback until it is back");
    }
    startProbe();
  };
  const markUp = (): void => {
    if (closed || up) return;
    up = true;
    if (loggedDown) backSince = Date.now();
    for (const listener of [...upListeners]) listener();
    if (probe) clearInterval(probe);
    probe = undefined;
    if (loggedDown) {
      loggedDown = false;
      logger.info({ event: "fleet_redis_up" }, "Redis is back: this instance uses the shared fleet state again");
    }
  };
  const startProbe = (): void => {
    if (probe || closed) return;
    probe = setInterval(() => {
      redis?.ping().then(markUp, () => {});
    }, PROBE_EVERY_MS);
    probe.unref();
  };

  const ready = (async () => {
    let mod: { Redis?: typeof import("ioredis").Redis; default?: { Redis?: typeof import("ioredis").Redis } };
    try {
      mod = (await import("ioredis")) as typeof mod;
    } catch (error) {
      if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw error;
      throw new ConfigurationError("redisFleet", [{
        option: "url", message: "needs the `ioredis` package, which is not installed.",
        fix: "Run `npm i ioredis` (an optional peer dependency of express-oral-assessments).",
      }]);
    }
    const Redis = (mod.Redis ?? mod.default?.Redis) as typeof import("ioredis").Redis;
    redis = new Redis(url, {
      commandTimeout: commandTimeoutMs,
      connectTimeout: Math.max(1000, commandTimeoutMs * 2),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect forever in the background, never faster than every 200 ms nor slower than 2 s.
      retryStrategy: (times) => Math.min(200 * times, 2000),
      lazyConnect: false,
    });
    // An 'error' event without a listener would crash the process; the health state reports it instead.
    redis.on("error", (error: Error) => markDown(error.message));
    redis.on("ready", () => markUp());
    redis.on("close", () => { if (up) markDown("connection closed"); });
    setup(redis);
  })();
  // A missing package surfaces through `ready` (and run); never as an unhandled rejection.
  ready.catch(() => {});

  return {
    get redis() { return redis; },
    get up() { return up && !closed; },
    get backSince() { return backSince; },
    ready,
    onUp(listener) {
      upListeners.add(listener);
      return () => { upListeners.delete(listener); };
    },
    async run(op) {
      await ready;
      if (!redis || closed) throw new Error("the fleet is closed");
      try {
        return await op(redis);
      } catch (error) {
        const message = (error as Error).message ?? String(error);
        // A script or argument error is ours to fix, not an outage.
        if (!/^(ERR|WRONGTYPE)/.test(message)) markDown(message);
        throw error;
      }
    },
    async close() {
      closed = true;
      if (probe) clearInterval(probe);
      await ready.catch(() => {});
      if (redis) {
        redis.disconnect();
      }
    },
  };
}
