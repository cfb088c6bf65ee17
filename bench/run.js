/**
 * `npm run bench [-- --json] [--students 600] [--launches 100000] [--rounds 2000]`
 *
 * Builds nothing itself (`npm run bench` runs the build first) and imports the package by
 * its name, as an integrator would. The emulator runs in a child process. Prints a table,
 * or with --json one JSON object on stdout (progress goes to stderr either way).
 * Targets are checked against baselines measured in the same run.
 */
import { parseArgs } from "node:util";
import { startEmulatorProcess } from "./lib/emulator.js";
import { table } from "./lib/stats.js";
import { runMemory } from "./memory.js";
import { runOverhead } from "./overhead.js";
import { runStorms } from "./storm.js";

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    students: { type: "string", default: "600" },
    launches: { type: "string", default: "100000" },
    rounds: { type: "string", default: "2000" },
    // For development: a comma-separated subset of storm,overhead,memory.
    only: { type: "string", default: "storm,overhead,memory" },
  },
});
const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const started = performance.now();
const emulator = await startEmulatorProcess();

let result;
try {
  const only = new Set(values.only.split(","));
  const skipped = Promise.resolve(undefined);
  // Memory first: its RSS baseline should not hold what the storms' 600 sockets left behind.
  const memory = await (only.has("memory") ? runMemory(emulator, { launches: Number(values.launches), log }) : skipped);
  const storm = await (only.has("storm") ? runStorms(emulator, { students: Number(values.students), log }) : skipped);
  const overhead = await (only.has("overhead") ? runOverhead(emulator, { rounds: Number(values.rounds), log }) : skipped);
  if (!storm || !overhead || !memory) {
    process.stdout.write(`${JSON.stringify({ storm, overhead, memory })}\n`);
    process.exit(0);
  }
  const targets = {
    onDemandRatio: storm.onDemand.ratio <= 1.05 && storm.onDemand.failed === 0,
    preWarmedP99: storm.preWarmed.p99Ms < 50 && storm.preWarmed.failed === 0,
    routerOverhead: overhead.routerVsDirect.medianAddedMs <= 0.3
      && overhead.routerVsDirect.medianAddedMs < overhead.httpProxyMiddleware.medianAddedMs,
    memory: memory.rssGrowthPct < 5,
  };
  result = {
    node: process.version,
    durationMs: 0,
    storm,
    overhead,
    memory,
    targets,
  };
} finally {
  await emulator.close();
}
result.durationMs = Math.round(performance.now() - started);

if (values.json) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const { storm, overhead, memory, targets } = result;
  process.stdout.write(`${table([
    ["storm: students", storm.students],
    ["storm: platform rate (per min)", storm.ratePerMinute],
    ["on demand: last redirect (ms)", storm.onDemand.lastRedirectMs, `N ÷ rate = ${storm.onDemand.boundMs}`],
    ["on demand: ratio", storm.onDemand.ratio, "≤ 1.05", targets.onDemandRatio],
    ["on demand: failed", storm.onDemand.failed, "0", storm.onDemand.failed === 0],
    ["on demand: saw waiting page", storm.onDemand.sawWaitingPage],
    ["on demand: platform 429s", storm.onDemand.platform429, "0", storm.onDemand.platform429 === 0],
    ["on demand: max calls in a window", storm.onDemand.maxInAnyWindow],
    ["pre-warmed: p50 (ms)", storm.preWarmed.p50Ms],
    ["pre-warmed: p99 (ms)", storm.preWarmed.p99Ms, "< 50", targets.preWarmedP99],
    ["pre-warmed: failed", storm.preWarmed.failed, "0", storm.preWarmed.failed === 0],
    ["pre-warmed: platform calls in storm", storm.preWarmed.platformCallsDuringStorm, "0"],
    ["overhead: direct median (ms)", overhead.directMedianMs],
    ["overhead: router added (ms)", overhead.routerVsDirect.medianAddedMs, "≤ 0.3 and < proxy", targets.routerOverhead],
    ["overhead: http-proxy-middleware added (ms)", overhead.httpProxyMiddleware.medianAddedMs],
    ["overhead: minimal forwarder added (ms)", overhead.minimalForwarder.medianAddedMs, "(floor, no target)"],
    ["memory: launches", memory.launches],
    ["memory: launches/s", memory.launchesPerSecond],
    ["memory: RSS growth (%)", memory.rssGrowthPct, "< 5", targets.memory],
    ["bench duration (s)", Math.round(result.durationMs / 1000)],
  ])}\n`);
}
