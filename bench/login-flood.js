/**
 * The login flood (issue 28): `/lti/login` needs no sign-in, only a public issuer, so
 * what a flood of anonymous logins makes the tool keep must be small (since issue 43:
 * nothing, the state is sealed into the `state` parameter). `logins` (default 5,000)
 * maximum-size logins (every parameter at the 4,096 characters the login reads, the
 * deployment id at LTI's 255, a 64-character Platform Storage frame), posted 16 at a time,
 * with `lti.loginLimit` raised so every one is answered (200, the Platform Storage page). The method of test/router/lti-login-flood.test.ts, with the router in a
 * process of its own (login-flood-host.js, `--expose-gc`) so the process measured is not
 * the one sending: twice, once with the in-process store and once with a Redis fleet on a
 * prefix of its own (`redisUrl`).
 *
 * Reported: the host's retained heap growth (heap used after a forced GC, before and
 * after; the target, < 40 MB), its RSS growth (information: RSS keeps pages the allocator
 * has not given back), and in fleet mode Redis's growth, MEMORY USAGE summed over every
 * key under the prefix, and the keys (target < 5 MB); bytes per login of each. MB here are
 * 2^20 bytes, as in the test. The prefix's keys are deleted afterwards. Without Redis the
 * fleet half is skipped with a warning, except under CI, where it is an error.
 *
 * Then the jam (login-jam.js, issue 43): 24 /64s sending 300 logins a second for 20 s at a
 * host with the default limits, and the share of learners from other addresses who get
 * their login (target ≥ 99 %).
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { fileURLToPath, URLSearchParams } from "node:url";
import { Redis } from "ioredis";
import { startLms } from "./lti.js";
import { forkChild } from "./lib/child.js";
import { round } from "./lib/stats.js";
import { runLoginJam } from "./login-jam.js";

const CHILD = fileURLToPath(new URL("./login-flood-host.js", import.meta.url));
const NO_LIMIT = { burst: 1_000_000 };
const WARM_UP = 50;
const MB = 1_048_576;

/** The largest login the tool reads: every parameter at its cap, and what it keeps at its cap too. */
function maximumLogin(registration, i) {
  const long = (c) => c.repeat(4096);
  return {
    iss: registration.issuer, client_id: registration.clientId, login_hint: `${i}${long("h")}`.slice(0, 4096), target_link_uri: `https://x.example/${long("t")}`.slice(0, 4096),
    lti_message_hint: long("m"), lti_deployment_id: "d".repeat(255), lti_storage_target: "f".repeat(64),
  };
}

/** `count` logins posted `concurrency` at a time; answers' statuses counted. */
async function flood(url, registration, count, from, concurrency = 16) {
  const statuses = {};
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = from + next++;
      const res = await fetch(url, { method: "POST", body: new URLSearchParams(maximumLogin(registration, i)), redirect: "manual" });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }));
  return statuses;
}

/** `options.trustProxy`: Express's `trust proxy` on the host (the jam's clients named in X-Forwarded-For). */
async function startFloodHost(options) {
  const { ready, ask, close } = await forkChild(CHILD, { execArgv: ["--expose-gc"], env: { FLOOD_OPTIONS: JSON.stringify(options) }, what: "the login flood's host" });
  return { url: ready.url, memory: () => ask({ memory: true }), close };
}

/** The bytes Redis uses for every key under `prefix` (MEMORY USAGE, summed), and their number. */
async function prefixBytes(redis, prefix) {
  let cursor = "0";
  let keys = 0;
  let bytes = 0;
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    const sizes = await Promise.all(found.map((k) => redis.memory("USAGE", k)));
    keys += found.length;
    bytes += sizes.reduce((sum, s) => sum + Number(s ?? 0), 0);
  } while (cursor !== "0");
  return { keys, bytes };
}

async function dropPrefix(redis, prefix) {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== "0");
}

/** Undefined when Redis answers PING; otherwise why not. */
async function probe(redisUrl) {
  const client = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return error.message || String(error);
  } finally {
    client.disconnect();
  }
}

/** One flood against a fresh host: warm-up, then `logins`, the host's memory settled before and after; `measureRedis` measures Redis alongside. */
async function floodOnce(emulator, lms, lti, { logins, redis, measureRedis = async () => undefined }) {
  const host = await startFloodHost({ emulator: { url: emulator.url, testKey: emulator.testKey }, lti, redis });
  try {
    const url = `${host.url}/oral/lti/login`;
    await flood(url, lms.registration, WARM_UP, 0); // code paths, pools
    const redisBefore = await measureRedis();
    const before = await host.memory();
    const statuses = await flood(url, lms.registration, logins, WARM_UP);
    const redisAfter = await measureRedis();
    const after = await host.memory();
    const heap = after.heapUsed - before.heapUsed;
    const rss = after.rss - before.rss;
    const out = {
      answered: statuses[200] ?? 0, statuses,
      heapGrowthMb: round(heap / MB, 1), heapBytesPerLogin: Math.round(heap / logins),
      rssGrowthMb: round(rss / MB, 1), rssBytesPerLogin: Math.round(rss / logins),
      heapAfterMb: round(after.heapUsed / MB, 1), rssAfterMb: round(after.rss / MB, 1),
    };
    if (redisBefore && redisAfter) {
      const bytes = redisAfter.bytes - redisBefore.bytes;
      Object.assign(out, { redisGrowthMb: round(bytes / MB, 2), redisKeys: redisAfter.keys - redisBefore.keys, redisBytesPerLogin: Math.round(bytes / logins) });
    }
    return out;
  } finally {
    await host.close();
  }
}

/** The jam against a fresh host with the default login limit (no `loginLimit`). */
async function jamOnce(emulator, lti, registration, log) {
  const { loginLimit: _, ...defaults } = lti;
  const host = await startFloodHost({ emulator: { url: emulator.url, testKey: emulator.testKey }, lti: defaults, trustProxy: "loopback" });
  try {
    return await runLoginJam(`${host.url}/oral/lti/login`, registration, { log });
  } finally {
    await host.close();
  }
}

export async function runLoginFlood(emulator, { logins = 5_000, redisUrl, log }) {
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  const lms = await startLms({});
  const lti = { keys: [{ kid: "bench-tool-1", privateKey }], registrations: [lms.registration], loginLimit: NO_LIMIT };
  const loadBefore = round(loadavg()[0], 2);
  try {
    log(`login flood: ${logins} maximum-size logins, in process`);
    const inProcess = await floodOnce(emulator, lms, lti, { logins });
    log(`login flood: in process ${JSON.stringify(inProcess.statuses)}: heap +${inProcess.heapGrowthMb} MB, rss +${inProcess.rssGrowthMb} MB`);
    let fleet;
    const why = await probe(redisUrl);
    if (why !== undefined) {
      if (process.env.CI) throw new Error(`login flood: Redis at ${redisUrl} is unreachable (${why}); CI must measure the fleet half`);
      log(`login flood: SKIPPING the fleet half: no Redis at ${redisUrl} (${why})`);
      fleet = { skipped: why };
    } else {
      const prefix = `eoabenchflood${randomBytes(3).toString("hex")}`;
      const redis = new Redis(redisUrl);
      try {
        log(`login flood: ${logins} maximum-size logins, fleet mode (Redis prefix ${prefix})`);
        fleet = await floodOnce(emulator, lms, lti, {
          logins,
          redis: { url: redisUrl, prefix, secret: randomBytes(32).toString("base64url") },
          measureRedis: () => prefixBytes(redis, prefix),
        });
        log(`login flood: fleet ${JSON.stringify(fleet.statuses)}: Redis +${fleet.redisGrowthMb} MB in ${fleet.redisKeys} keys, heap +${fleet.heapGrowthMb} MB`);
      } finally {
        await dropPrefix(redis, prefix);
        redis.disconnect();
      }
    }
    const jam = await jamOnce(emulator, lti, lms.registration, log);
    return { logins, loadAverage: { before: loadBefore, after: round(loadavg()[0], 2) }, inProcess, fleet, jam };
  } finally {
    await lms.close();
  }
}
