/**
 * The organizations benchmark's host app in a process of its own (lib/host-process.js
 * starts it), as a deployment runs it: the router's CPU is not shared with the bench's
 * 650 simulated browsers. The same host as in process (lib/host.js `startHost`), with
 * the organizations, client and router options from HOST_OPTIONS (JSON). Answers IPC
 * messages: `{ seed: name, org }` → the seeded ids; `{ loop: "start" | "stop" }` → this
 * process's event-loop delay (p99 and max, ms) since "start".
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startHost } from "./lib/host.js";

const { emulator, organizations, client, router } = JSON.parse(process.env.HOST_OPTIONS);
const byId = new Map(organizations.map((o) => [o.id, { apiKey: o.testKey, examHost: o.examHost }]));
const host = await startHost(emulator, { organizationOf: (id) => byId.get(id), client, router });
let loop;
process.on("message", async ({ id, seed, org, loop: step }) => {
  try {
    if (seed !== undefined) process.send({ id, result: await host.seedExam(seed, org) });
    else if (step === "start") {
      loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      process.send({ id, result: true });
    } else if (step === "stop") {
      loop.disable();
      process.send({ id, result: { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 } });
    }
  } catch (error) {
    process.send({ id, error: String(error) });
  }
});
process.on("disconnect", () => {
  host.close().finally(() => process.exit(0));
});
process.send({ url: host.url });
