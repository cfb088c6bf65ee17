/**
 * `node bench/launch-cpu.js [--launches 2000] [--concurrency 50] [--organizations] [--floor]`: the
 * router host's CPU per launch alone, for profiling (`HOST_CPU_PROF=<dir>`): the host in
 * its own process (lib/host-process.js), the emulator's limits lifted, each launch a new
 * student on demand (one sign-in call, one 303), `concurrency` at a time. Prints
 * `{ cpuMsPerLaunch, … }` on stdout. No target: the bench's organizations part reports the
 * figure that counts (a storm at the limit, beside http-proxy-middleware's). `--floor`: the
 * same launches against floor-process.js instead (bare node:http, the one sign-in call and
 * the 303, nothing else), the least any tool's launch costs on this machine;
 * `--floor-stack express,axios` adds either dependency to it (floor-process.js).
 */
import { parseArgs } from "node:util";
import os from "node:os";
import { createBrowserPool, launch } from "./lib/browser.js";
import { startEmulatorProcess } from "./lib/emulator.js";
import { cookieOf } from "./lib/host.js";
import { startHostProcess } from "./lib/host-process.js";
import { forkChild } from "./lib/child.js";
import { round } from "./lib/stats.js";

const { values } = parseArgs({ options: { launches: { type: "string", default: "2000" }, concurrency: { type: "string", default: "50" }, organizations: { type: "boolean", default: false }, floor: { type: "boolean", default: false }, "floor-stack": { type: "string", default: "" } } });
const launches = Number(values.launches);
const concurrency = Number(values.concurrency);
const schools = values.organizations ? [{ id: "storm", name: "Storm University" }] : undefined;
const emulator = await startEmulatorProcess(schools ? { organizations: schools } : {});
await emulator.setRateLimits({ dev: 1_000_000_000, windowMs: 60_000 });
const host = values.floor ? await startFloorProcess(emulator) : await startHostProcess(emulator, {
  ...(schools ? { organizations: emulator.organizations } : {}),
  client: { rateLimitPerMinute: 1_000_000_000 },
  router: { waitingPageAfterMs: 2_000 },
});
const agent = createBrowserPool();
const org = schools ? "storm" : undefined;
try {
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
  await run("w", 300); // warm-up
  const load = os.loadavg()[0];
  await host.loopStart();
  const failed = await run("s", launches);
  const { cpuMs, cpuSystemMs, launchRequests } = await host.loopStop();
  process.stdout.write(`${JSON.stringify({ host: values.floor ? `floor${values["floor-stack"] ? `+${values["floor-stack"]}` : ""}` : "router", launches, failed, launchRequests, cpuMs: round(cpuMs, 1), cpuMsPerLaunch: round(cpuMs / launchRequests, 3), systemMsPerLaunch: round(cpuSystemMs / launchRequests, 3), load: round(load, 2) })}\n`);
} finally {
  agent.destroy();
  await host.close();
  await emulator.close();
}

/** floor-process.js as a child, with the host process's seeding and CPU calls. */
async function startFloorProcess({ url, testKey }) {
  const { ready, ask, close } = await forkChild(new URL("./floor-process.js", import.meta.url), {
    env: { FLOOR_OPTIONS: JSON.stringify({ emulator: { url, testKey }, stack: values["floor-stack"].split(",").filter(Boolean) }) }, what: "the floor process",
  });
  return { url: ready.url, seedExam: (name) => ask({ seed: name }), loopStart: () => ask({ loop: "start" }), loopStop: () => ask({ loop: "stop" }), close };
}
