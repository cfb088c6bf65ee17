/**
 * The key canary: finds any of this run's API keys in errors, logs and process output.
 * key-canary.setup.ts wires it into every test file; tests also call `assertNoKey` on
 * the errors they catch.
 */
import { inspect } from "node:util";
import type { Logger } from "../../src/core/logger.js";
import { ALL_KEYS } from "./keys.js";

/** Every form an error or value can be printed in. */
function renderings(value: unknown): string[] {
  const out = [String(value), inspect(value, { depth: 8, showHidden: true })];
  try { out.push(JSON.stringify(value) ?? ""); } catch { /* circular: inspect covers it */ }
  if (value instanceof Error) {
    out.push(value.stack ?? "", value.message);
    if (value.cause !== undefined) out.push(...renderings(value.cause));
  }
  return out;
}

export function findKey(value: unknown): string | undefined {
  for (const text of renderings(value)) {
    for (const key of ALL_KEYS) if (text.includes(key)) return key.slice(0, 9);
  }
  return undefined;
}

/** Fails when `value`, printed any way, contains a test key. */
export function assertNoKey(value: unknown, what = "value"): void {
  const leaked = findKey(value);
  if (leaked) throw new Error(`KEY LEAK: a ${leaked}… key appears in ${what}`);
}

/** Lines written to the captured process output and to capture loggers in this file. */
export const captured: string[] = [];

/** A pino-compatible logger that keeps every line, so tests (and the canary) can read them. */
export function captureLogger(): Logger & { lines: { level: string; obj: Record<string, unknown>; msg?: string }[] } {
  const lines: { level: string; obj: Record<string, unknown>; msg?: string }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg?: string) => {
    lines.push({ level, obj, msg });
    captured.push(`${level} ${inspect(obj, { depth: 8 })} ${msg ?? ""}`);
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
