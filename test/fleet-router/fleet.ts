/**
 * A fleet on 127.0.0.1 for the tests and the bench: N router instances as separate
 * processes (tsx test/fleet-router/instance.ts) behind a tiny round-robin balancer
 * (node:http), one emulator, one API key, one Redis, one PostgreSQL schema.
 *
 * The balancer is the bench's (bench/lib/balancer.js).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export interface FleetInstance {
  port: number;
  child: ChildProcess;
  alive: boolean;
  /** Its log lines (JSON: the router's and the fleet's warnings and errors), the last 500. */
  logs: Record<string, unknown>[];
}

export { startBalancer } from "../../bench/lib/balancer.js";
export type Balancer = Awaited<ReturnType<typeof import("../../bench/lib/balancer.js").startBalancer>>;

const INSTANCE = fileURLToPath(new URL("./instance.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

export async function startInstance(env: Record<string, string>): Promise<FleetInstance> {
  // Its own process group: tsx runs the app in a child process, and a SIGKILL of tsx alone
  // would leave that child running (a "crash" that keeps serving).
  const child = spawn(TSX, [INSTANCE], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let errors = "";
  // Kept for a failure message only, never printed otherwise (it could name anything).
  child.stderr!.on("data", (d: Buffer) => { errors = (errors + d.toString()).slice(-2_000); });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`a fleet instance exited (${code}) before listening: ${errors.split("\n").filter((l) => /Error|error/.test(l)).slice(0, 3).join(" | ")}`)));
  });
  const instance: FleetInstance = { port, child, alive: true, logs: [] };
  child.once("exit", () => { instance.alive = false; });
  let pending = "";
  child.stdout!.on("data", (d: Buffer) => {
    const lines = (pending + d.toString()).split("\n");
    pending = lines.pop()!;
    for (const text of lines.filter((l) => l.startsWith("{"))) instance.logs.push(JSON.parse(text) as Record<string, unknown>);
    instance.logs.splice(0, Math.max(0, instance.logs.length - 500));
  });
  return instance;
}

export async function stopInstance(instance: FleetInstance, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = once(instance.child, "exit");
  // The whole group, tsx and the app: a signal to tsx alone could leave the app running.
  process.kill(-instance.child.pid!, signal);
  // A clean stop that takes too long is a kill.
  const timer = setTimeout(() => process.kill(-instance.child.pid!, "SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

