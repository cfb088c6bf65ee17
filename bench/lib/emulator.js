/**
 * Starts bench/emulator-process.js as a child and drives it through its HTTP control
 * endpoints (`/__emulator/*`), as an integrator would drive an emulator in another process.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("../emulator-process.js", import.meta.url));

/**
 * `classCapacity`: students per class (default 100 000: no class fills up in a benchmark).
 * `organizations`: the schools it hosts (`[{ id, name }]`; default one).
 */
export async function startEmulatorProcess({ classCapacity, organizations } = {}) {
  const env = { ...process.env };
  if (classCapacity !== undefined) env.EMULATOR_CLASS_CAPACITY = String(classCapacity);
  if (organizations !== undefined) env.EMULATOR_ORGANIZATIONS = JSON.stringify(organizations);
  const child = fork(CHILD, [], { stdio: ["ignore", "inherit", "inherit", "ipc"], env });
  const { url, testKey, organizations: hosted } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`the emulator process exited (${code}) before listening`)));
  });

  async function control(method, path, body) {
    const res = await fetch(`${url}/__emulator${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`emulator control ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  return {
    url,
    testKey,
    /** `[{ id, testKey, examHost }]` of every organization it hosts. */
    organizations: hosted,
    setRateLimits: (limits) => control("POST", "/rate-limits", limits),
    setLatency: (latency) => control("POST", "/latency", latency),
    clearFaults: () => control("DELETE", "/faults"),
    /** Adds a fault (a `FaultSpec`: status, hang, reset or malformed, for matching requests). */
    fault: (spec) => control("POST", "/faults", spec),
    /** The last `limit` API requests received, oldest first. */
    requests: (limit) => control("GET", `/requests?limit=${limit}`),
    close: () => new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.disconnect();
    }),
  };
}
