/**
 * Starts bench/host-process.js as a child: a bench host (lib/host.js) whose router runs
 * in another process than the benchmark's client. `router` options must be JSON: a SQLite
 * store is `sqliteFile`, and `noExamHost: true` drops the default exam host. Answers the
 * url, `seedExam` and `close`, like `startHost`.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { seedExamAt } from "./host.js";

const CHILD = fileURLToPath(new URL("../host-process.js", import.meta.url));

export async function startHostProcess(emulator, { client = {}, router = {} } = {}) {
  const env = { ...process.env, EOA_BENCH_HOST: JSON.stringify({ emulator: { url: emulator.url, testKey: emulator.testKey }, client, router }) };
  const child = fork(CHILD, [], { stdio: ["ignore", "inherit", "inherit", "ipc"], env });
  const { url } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the host process exited (${code}) before listening`)));
  });

  return {
    url,
    seedExam: (name) => seedExamAt(url, name),
    close: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.disconnect();
    }),
  };
}
