/**
 * Starts bench/host-process.js as a child: the host app (router and all) in its own
 * process, driven over HTTP like the in-process host (`url`), and over IPC for seeding and
 * its event-loop delay. `organizations`: `[{ id, testKey, examHost }]` it serves (none:
 * one organization, the emulator's default). `router` options must be JSON (see the child).
 * `HOST_CPU_PROF=<dir>` in the environment writes the child's CPU profile there
 * (`node --cpu-prof`), to see where the router spends a storm.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("../host-process.js", import.meta.url));

export async function startHostProcess(emulator, { organizations, client = {}, router = {} } = {}) {
  const options = { emulator: { url: emulator.url, testKey: emulator.testKey }, organizations, client, router };
  const child = fork(CHILD, [], { execArgv: process.env.HOST_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.HOST_CPU_PROF}`] : [], stdio: ["ignore", "inherit", "inherit", "ipc"], env: { ...process.env, HOST_OPTIONS: JSON.stringify(options) } });
  const { url } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the host process exited (${code}) before listening`)));
  });
  let next = 0;
  const pending = new Map();
  child.on("message", ({ id, result, error }) => {
    const waiter = pending.get(id);
    if (!waiter) return;
    pending.delete(id);
    if (error) waiter.reject(new Error(error));
    else waiter.resolve(result);
  });
  const ask = (message) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject });
    child.send({ ...message, id });
  });
  return {
    url,
    seedExam: (name, org) => ask({ seed: name, org }),
    loopStart: () => ask({ loop: "start" }),
    loopStop: () => ask({ loop: "stop" }),
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
