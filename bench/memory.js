/**
 * Memory over 100 000 launches through the whole path (router, launch queue, platform
 * client, emulator in its own process with its limit raised), `concurrency` at a time,
 * for a pool of students. RSS is taken after a warm-up and at the end, each after a full
 * GC (exposed at run time if node was not started with --expose-gc), so what remains is
 * what the router keeps.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { createBrowserPool, get } from "./lib/browser.js";
import { cookieOf, startHost } from "./lib/host.js";
import { round, sleep } from "./lib/stats.js";

function gcFunction() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc");
}

export async function runMemory(emulator, { launches = 100_000, warmup = 10_000, concurrency = 32, pool = 500, log }) {
  await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
  await emulator.setLatency({ fixedMs: 0, jitterMs: 0 });
  // 200 launches per student: the per-student launch limit is lifted, as the key's limit is (this measures memory).
  const host = await startHost(emulator, { client: { rateLimitPerMinute: 1_000_000_000 }, router: { launchLimit: { burst: 1_000_000_000, refillMs: 1 } } });
  const agent = createBrowserPool();
  const gc = gcFunction();
  const settle = async () => {
    await sleep(100);
    gc();
    await sleep(50);
    gc();
    return process.memoryUsage();
  };
  try {
    const { examId } = await host.seedExam("Memory");
    let failed = 0;
    let next = 0;
    const run = async (count) => {
      const end = next + count;
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < end) {
          const i = next++;
          const res = await get(agent, `${host.url}/oral/launch/${examId}`, cookieOf(i % pool));
          if (res.status !== 303) failed += 1;
        }
      }));
    };
    log(`memory: ${warmup} warm-up launches, then ${launches}`);
    await run(warmup);
    const before = await settle();
    const started = performance.now();
    await run(launches);
    const durationMs = performance.now() - started;
    const after = await settle();
    return {
      launches,
      failed,
      durationMs: Math.round(durationMs),
      launchesPerSecond: Math.round(launches / (durationMs / 1000)),
      rssBeforeMb: round(before.rss / 2 ** 20, 1),
      rssAfterMb: round(after.rss / 2 ** 20, 1),
      rssGrowthPct: round(((after.rss - before.rss) / before.rss) * 100, 2),
      heapUsedGrowthPct: round(((after.heapUsed - before.heapUsed) / before.heapUsed) * 100, 2),
      // Outside the JS heap: Buffers and ArrayBuffers (sockets, HTTP bodies) that V8 tracks.
      externalGrowthMb: round((after.external - before.external) / 2 ** 20, 1),
      arrayBuffersGrowthMb: round((after.arrayBuffers - before.arrayBuffers) / 2 ** 20, 1),
    };
  } finally {
    agent.destroy();
    await host.close();
  }
}
