/**
 * `logsAt`: whether a line at a level would be written, asked before a per-request line is
 * built (a launch's outcome). A real pino logger's level is honoured through `toLogger`,
 * also after it changes at run time; the silent default and filled-in levels write nothing.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { expect, it } from "vitest";
import { logsAt, silentLogger, toLogger } from "../../src/core/logger.js";

function pinoAt(level: string) {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  return { logger: pino({ level }, sink), lines };
}

it("follows a pino logger's level through toLogger, and its changes at run time", () => {
  const { logger } = pinoAt("info");
  const ours = toLogger(logger);
  expect(logsAt(ours, "debug")).toBe(false);
  expect(logsAt(ours, "info")).toBe(true);
  expect(logsAt(ours, "error")).toBe(true);
  logger.level = "debug";
  expect(logsAt(ours, "debug")).toBe(true);
  logger.level = "error";
  expect(logsAt(ours, "warn")).toBe(false);
  expect(logsAt(ours, "error")).toBe(true);
});

it("writes nothing for the silent default nor for a level a partial logger lacks", () => {
  for (const level of ["debug", "info", "warn", "error"] as const) expect(logsAt(silentLogger, level)).toBe(false);
  expect(logsAt(toLogger(undefined), "info")).toBe(false);
  const partial = toLogger({ warn: () => {}, error: () => {} });
  expect(logsAt(partial, "info")).toBe(false);
  expect(logsAt(partial, "warn")).toBe(true);
});

it("takes a logger without isLevelEnabled (a console-like one) at its word: every level it has is written", () => {
  const seen: string[] = [];
  const ours = toLogger({ debug: (_o, m) => seen.push(`debug ${m}`), info: (_o, m) => seen.push(`info ${m}`) });
  expect(logsAt(ours, "debug")).toBe(true);
  expect(logsAt(ours, "info")).toBe(true);
  ours.debug({}, "x");
  expect(seen).toEqual(["debug x"]);
});

it("still writes through toLogger's pino what pino's level lets through", () => {
  const { logger, lines } = pinoAt("info");
  const ours = toLogger(logger);
  ours.debug({ event: "launch" }, "launch waiting");
  ours.info({ event: "launch" }, "launch redirected");
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ event: "launch", msg: "launch redirected" });
});
