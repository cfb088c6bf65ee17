/**
 * Redis for the fleet tests: the shared server at 127.0.0.1:6379 (or EOA_TEST_REDIS_URL),
 * a random key prefix per test file, the "fail in CI, skip loudly elsewhere" rule, and
 * private `redis-server` children on free ports for the tests that kill Redis.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { afterAll, describe, it } from "vitest";
import { fleetReady, redisFleet, type RedisFleet, type RedisFleetOptions } from "../../src/fleet/index.js";

export const REDIS_URL = process.env.EOA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
export const SECRET = randomBytes(32).toString("base64url");

export const randomPrefix = (name: string): string => `eoatest-${name}-${randomBytes(4).toString("hex")}`;

/** undefined when Redis answers PING; otherwise why not. */
export async function probeRedis(url = REDIS_URL): Promise<string | undefined> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    client.disconnect();
  }
}

/**
 * Call at the top of a Redis test file: returns true when the suites may run. Without
 * Redis, under CI a failing test is registered; elsewhere a loud warning is printed.
 */
export async function redisOrSkip(what: string): Promise<boolean> {
  const why = await probeRedis();
  if (why === undefined) return true;
  if (process.env.CI) {
    describe(what, () => {
      it("needs a reachable Redis in CI", () => {
        throw new Error(`Redis at ${REDIS_URL} is unreachable (${why}); CI must run the fleet tests. Start it: redis-server --daemonize yes`);
      });
    });
  } else {
    console.warn(["", "!".repeat(78), `!!! SKIPPING ${what}: no Redis at ${REDIS_URL} (${why})`,
      "!!! Start it with:  redis-server --daemonize yes   (In CI this is a failure.)", "!".repeat(78), ""].join("\n"));
  }
  return false;
}

/** Deletes every key under `prefix` (SCAN, never KEYS). */
export async function dropPrefix(prefix: string): Promise<void> {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A private redis-server (no persistence) on `port`; `stop()` SIGKILLs it. */
export async function startRedisServer(port: number): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100 && (await probeRedis(url)) !== undefined; i++) await new Promise((r) => setTimeout(r, 50));
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * Redis fleets on one prefix, for one describe block: `fleet(secret?, options?)` makes one
 * and waits until it is ready; after the block every fleet is closed, the prefix dropped
 * and `raw` (a plain client, to read or tamper with what the fleets wrote) disconnected.
 */
export function fleetsOnPrefix(prefix: string): { raw: Redis; fleet(secret?: RedisFleetOptions["secret"], options?: Partial<RedisFleetOptions>): Promise<RedisFleet> } {
  const raw = new Redis(REDIS_URL);
  const fleets: RedisFleet[] = [];
  afterAll(async () => {
    await Promise.all(fleets.map((f) => f.close()));
    await dropPrefix(prefix);
    raw.disconnect();
  });
  return {
    raw,
    async fleet(secret = SECRET, options = {}) {
      const made = redisFleet({ url: REDIS_URL, secret, prefix, ...options });
      fleets.push(made);
      await fleetReady(made);
      return made;
    },
  };
}
