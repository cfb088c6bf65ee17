/**
 * Runs in every test file: records everything written to stdout/stderr and every capture
 * logger line, and fails the file if any of this run's API keys appears in them.
 */
import { inspect } from "node:util";
import { afterAll } from "vitest";
import { captured, findKey } from "./support/canary.js";

// Setup files run before every test file, and most files share their worker's process
// (vitest.config.ts, isolate: false): wrap the streams and console once per process, not
// once more per file (a chain of wrappers, each line captured many times).
const WRAPPED = Symbol.for("express-oral-assessments.key-canary.wrapped");
const processState = process as unknown as Record<symbol, boolean>;
if (!processState[WRAPPED]) {
  processState[WRAPPED] = true;
  wrapOutput();
}

function wrapOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    (stream as unknown as { write: (...args: unknown[]) => boolean }).write = (chunk: unknown, ...rest: unknown[]) => {
      captured.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
      return write(chunk, ...rest);
    };
  }

  // Vitest routes console.* through its own channel, so record those calls as well.
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      captured.push(args.map((a) => (typeof a === "string" ? a : inspect(a, { depth: 8 }))).join(" "));
      original(...args);
    };
  }
}

afterAll(() => {
  const leaks = captured.filter((line) => findKey(line) !== undefined);
  captured.length = 0;
  if (leaks.length > 0) throw new Error(`KEY LEAK: ${leaks.length} captured output/log line(s) contain an API key`);
});
