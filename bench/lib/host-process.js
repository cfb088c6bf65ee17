/**
 * Starts bench/host-process.js as a child: the host app (router and all) in its own
 * process, driven over HTTP like the in-process host (`url`), and over IPC for seeding and
 * its event-loop delay. `organizations`: `[{ id, testKey, examHost }]` it serves (none:
 * one organization, the emulator's default). `router` options must be JSON (see the child).
 * `HOST_CPU_PROF=<dir>` in the environment writes the child's CPU profile there
 * (`node --cpu-prof`), to see where the router spends a storm; `HOST_CPU_PROF_INTERVAL=<µs>`
 * samples more often than V8's 1 000 µs (a storm's few seconds then give enough samples).
 */
import { forkChild } from "./child.js";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("../host-process.js", import.meta.url));

export async function startHostProcess(emulator, { organizations, client = {}, router = {} } = {}) {
  const options = { emulator: { url: emulator.url, testKey: emulator.testKey }, organizations, client, router };
  const { ready, ask, close } = await forkChild(CHILD, {
    execArgv: process.env.HOST_CPU_PROF ? [
      "--cpu-prof", `--cpu-prof-dir=${process.env.HOST_CPU_PROF}`,
      ...(process.env.HOST_CPU_PROF_INTERVAL ? [`--cpu-prof-interval=${process.env.HOST_CPU_PROF_INTERVAL}`] : []),
    ] : [],
    env: { HOST_OPTIONS: JSON.stringify(options) }, what: "the host process",
  });
  return {
    url: ready.url,
    seedExam: (name, org) => ask({ seed: name, org }),
    loopStart: () => ask({ loop: "start" }),
    loopStop: () => ask({ loop: "stop" }),
    close,
  };
}
