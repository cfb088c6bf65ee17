/**
 * `node bench/launch-cpu.js [--launches 2000] [--concurrency 50] [--organizations] [--floor]
 * [--floor-stack express,axios]`: the router host's CPU per launch alone, for profiling
 * (`HOST_CPU_PROF=<dir>`) and A/B comparisons: the host in its own process, the emulator's
 * limits lifted, each launch a new student on demand (one sign-in call, one 303),
 * `concurrency` at a time (lib/launch-cpu.js). Prints `{ cpuMsPerLaunch, … }` on stdout.
 * `--floor`: the same launches against floor-process.js instead (bare node:http, the one
 * sign-in call and the 303, nothing else), the least any tool's launch costs on this
 * machine; `--floor-stack` adds Express and/or axios to it. The bench's organizations part
 * reports the router's figure in a storm at the limit, beside http-proxy-middleware's and
 * these floors.
 */
import { parseArgs } from "node:util";
import { measureLaunchCpu } from "./lib/launch-cpu.js";

const { values } = parseArgs({ options: {
  launches: { type: "string", default: "2000" }, concurrency: { type: "string", default: "50" },
  organizations: { type: "boolean", default: false }, floor: { type: "boolean", default: false }, "floor-stack": { type: "string", default: "" },
} });
const result = await measureLaunchCpu({
  launches: Number(values.launches), concurrency: Number(values.concurrency), organizations: values.organizations,
  floor: values.floor, stack: values["floor-stack"].split(",").filter(Boolean),
});
process.stdout.write(`${JSON.stringify(result)}\n`);
