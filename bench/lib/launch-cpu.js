/**
 * A host's CPU per launch, launches alone: the host in its own process, the emulator's
 * limits lifted, each launch a new student on demand (one sign-in call, one 303),
 * `concurrency` at a time, after 300 launches of warm-up. The host is the router's
 * (host-process.js) or, with `floor`, floor-process.js: bare node:http doing only what
 * every launch must, `stack` adding "express" and/or "axios" to it. Used by
 * bench/launch-cpu.js and by the organizations part (the floor beside the router's figure).
 */
import os from "node:os";
import { createBrowserPool, launch } from "./browser.js";
import { forkChild } from "./child.js";
import { startEmulatorProcess } from "./emulator.js";
import { cookieOf } from "./host.js";
import { startHostProcess } from "./host-process.js";
import { round } from "./stats.js";

const FLOOR_CHILD = new URL("../floor-process.js", import.meta.url);

/** `{ host, launches, failed, launchRequests, cpuMs, cpuMsPerLaunch, systemMsPerLaunch, load }`. */
export async function measureLaunchCpu({ launches = 2_000, concurrency = 50, organizations = false, floor = false, stack = [] } = {}) {
  const schools = organizations ? [{ id: "storm", name: "Storm University" }] : undefined;
  const emulator = await startEmulatorProcess(schools ? { organizations: schools } : {});
  let host;
  const agent = createBrowserPool();
  try {
    await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
    host = floor ? await startFloorProcess(emulator, stack) : await startHostProcess(emulator, {
      ...(schools ? { organizations: emulator.organizations } : {}),
      client: { rateLimitPerMinute: 1_000_000_000 },
      router: { waitingPageAfterMs: 2_000 },
    });
    const org = schools && !floor ? "storm" : undefined;
    const { examId } = await host.seedExam("CPU", org);
    const run = async (prefix, count) => {
      let next = 0;
      let failed = 0;
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const i = next++;
          const walk = await launch(agent, host.url, `/oral/launch/${examId}`, cookieOf(`${prefix}${i}`, org));
          if (walk.status !== 303) failed += 1;
        }
      }));
      return failed;
    };
    await run("w", 300);
    const load = os.loadavg()[0];
    await host.loopStart();
    const failed = await run("s", launches);
    const { cpuMs, cpuSystemMs, launchRequests } = await host.loopStop();
    return {
      host: floor ? ["floor", ...stack].join("+") : "router", launches, failed, launchRequests, cpuMs: round(cpuMs, 1),
      cpuMsPerLaunch: round(cpuMs / launchRequests, 3), systemMsPerLaunch: round(cpuSystemMs / launchRequests, 3), load: round(load, 2),
    };
  } finally {
    agent.destroy();
    await host?.close();
    await emulator.close();
  }
}

/** floor-process.js as a child, with the host process's seeding and CPU calls. */
async function startFloorProcess({ url, testKey }, stack) {
  const { ready, ask, close } = await forkChild(FLOOR_CHILD, {
    env: { FLOOR_OPTIONS: JSON.stringify({ emulator: { url, testKey }, stack }) }, what: "the floor process",
  });
  return { url: ready.url, seedExam: (name) => ask({ seed: name }), loopStart: () => ask({ loop: "start" }), loopStop: () => ask({ loop: "stop" }), close };
}
