/**
 * A bench part's helper process: forked with IPC, its first message is its "ready"
 * answer (`url` and whatever else it reports), then `ask(message)` sends a request with an
 * id and resolves with the child's `{ id, result }` (or rejects with its `error`), and
 * `close()` disconnects it and waits for its exit (killed after 5 s). One place for what
 * the host, LMS and login-flood processes each did by hand.
 */
import { fork } from "node:child_process";

export async function forkChild(path, { env = {}, execArgv = [], what = "the child process" } = {}) {
  const child = fork(path, [], { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"], env: { ...process.env, ...env } });
  const ready = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}) before listening`)));
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
  const close = async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.disconnect();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return { ready, ask, close };
}
