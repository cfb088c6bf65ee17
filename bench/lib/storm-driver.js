/**
 * Starts bench/storm-driver.js: a wave of simulated browsers in a process of their own.
 * `await startStormDriver()` resolves once the process is loaded (its start-up is not in
 * the wave); `wave({ url, examId, org, prefix, count, arrivalMs })` starts the wave at
 * once and resolves with `[{ status, ms }]`.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("../storm-driver.js", import.meta.url));

export async function startStormDriver() {
  const child = fork(CHILD, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise((_, reject) => child.once("exit", (code) => reject(new Error(`the storm driver exited (${code}) before it was done`))));
  exited.catch(() => {});
  const next = () => Promise.race([new Promise((resolve) => child.once("message", resolve)), exited]);
  await next();
  return {
    wave(options) {
      const answered = next();
      child.send(options);
      return answered.then((m) => m.walks);
    },
  };
}
