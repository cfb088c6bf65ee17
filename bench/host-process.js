/**
 * A bench host app (lib/host.js `startHost`) in a process of its own (lib/host-process.js
 * starts it), as a deployment runs it: the router's CPU and event loop are not shared
 * with the benchmark's simulated browsers, which send the launches and time them. The
 * options come from HOST_OPTIONS (JSON): `organizations` (`[{ id, testKey, examHost }]`,
 * or none for one organization), `client`, and `router`, where a SQLite store is
 * `sqliteFile` and `noExamHost: true` drops the default exam host (JSON has no
 * `undefined`). Answers IPC messages: `{ seed: name, org }` → the seeded ids;
 * `{ loop: "start" | "stop" }` → this process's event-loop delay (p99 and max, ms) since
 * "start", and its CPU time (`process.cpuUsage`, user + system, ms) and the launch requests
 * it received meanwhile (all, and first arrivals without `wait=`).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { sqliteStore } from "express-oral-assessments";
import { startHost } from "./lib/host.js";

const { emulator, organizations, client, router: { sqliteFile, noExamHost, ...router } } = JSON.parse(process.env.HOST_OPTIONS);
const byId = organizations && new Map(organizations.map((o) => [o.id, { apiKey: o.testKey, examHost: o.examHost }]));
const host = await startHost(emulator, {
  organizationOf: byId && ((id) => byId.get(id)),
  client,
  router: {
    ...router,
    ...(sqliteFile === undefined ? {} : { store: sqliteStore({ filename: sqliteFile }) }),
    ...(noExamHost ? { examHost: undefined } : {}),
  },
});
let loop;
let cpuAtStart;
let launchesAtStart;
process.on("message", async ({ id, seed, org, loop: step }) => {
  try {
    if (seed !== undefined) process.send({ id, result: await host.seedExam(seed, org) });
    else if (step === "start") {
      loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      cpuAtStart = process.cpuUsage();
      launchesAtStart = host.launches();
      process.send({ id, result: true });
    } else if (step === "stop") {
      loop.disable();
      const cpu = process.cpuUsage(cpuAtStart);
      const now = host.launches();
      process.send({ id, result: {
        p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6,
        cpuMs: (cpu.user + cpu.system) / 1000, cpuSystemMs: cpu.system / 1000,
        launchRequests: now.requests - launchesAtStart.requests, launchStudents: now.students - launchesAtStart.students,
      } });
    }
  } catch (error) {
    process.send({ id, error: String(error) });
  }
});
process.on("disconnect", () => {
  host.close().finally(() => process.exit(0));
});
process.send({ url: host.url });
