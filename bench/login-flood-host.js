/**
 * The login flood's host (login-flood.js starts it with `node --expose-gc`): the bench host
 * app (lib/host.js) with an LTI tool registered to one LMS, in a process of its own, so the
 * process measured is not the one sending the logins. Options come from FLOOD_OPTIONS
 * (JSON): `emulator` (`{ url, testKey }`), `lti` (the router's `lti` options: keys,
 * registrations, loginLimit), `redis` (`{ url, prefix, secret }`: a Redis fleet on that
 * prefix; none: the in-process store) and `trustProxy` (Express's `trust proxy`: the jam
 * part names its clients' addresses in X-Forwarded-For). Sends `{ url }` once listening; answers the IPC
 * message `{ memory: true }` with this process's heap used and RSS after a forced GC (three
 * passes, 50 ms apart, as the test does); stops when the parent disconnects.
 */
import { fleetReady, redisFleet } from "express-oral-assessments";
import { startHost } from "./lib/host.js";
import { sleep } from "./lib/stats.js";

const { emulator, lti, redis, trustProxy } = JSON.parse(process.env.FLOOD_OPTIONS);
// A generous command timeout: on a busy shared machine a slow SET is not what this measures.
const fleet = redis && redisFleet({ url: redis.url, secret: redis.secret, prefix: redis.prefix, commandTimeoutMs: 5_000 });
if (fleet) await fleetReady(fleet);
const host = await startHost(emulator, { router: { lti, ...(fleet ? { fleet } : {}) }, trustProxy });

/** Heap used and RSS once what can be collected has been. */
async function settled() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await sleep(50);
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

process.on("message", async ({ id, memory }) => {
  try {
    if (memory) process.send({ id, result: await settled() });
  } catch (error) {
    process.send({ id, error: String(error) });
  }
});
process.on("disconnect", () => {
  host.close().then(() => fleet?.close()).finally(() => process.exit(0));
});
process.send({ url: host.url });
