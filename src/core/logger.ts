/**
 * The logging shape we call: a subset of pino's API (`logger.info(obj, msg)`), so a pino
 * or pino-compatible logger can be passed as is. Objects we log never hold the API key,
 * an Authorization header, a sign-in token or an axios config.
 */
export interface Logger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
  /** pino's: false when lines at `level` are dropped (asked before building a line per request). Optional. */
  isLevelEnabled?(level: string): boolean;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

const noop = (): void => {};

/** The default: quiet. A library should not write to stdout unless asked to. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** Fills the methods a partial logger (e.g. `console`-like objects) lacks. */
export function toLogger(logger: Partial<Logger> | undefined): Logger {
  if (!logger) return silentLogger;
  const bind = (fn: Logger[LogLevel] | undefined): Logger["info"] =>
    typeof fn === "function" ? fn.bind(logger) : noop;
  const levels = { debug: bind(logger.debug), info: bind(logger.info), warn: bind(logger.warn), error: bind(logger.error) };
  const enabled = logger.isLevelEnabled;
  return typeof enabled === "function" ? { ...levels, isLevelEnabled: (level: string) => enabled.call(logger, level) } : levels;
}

/**
 * Whether a line at `level` would be written: not for a method this module filled with a
 * no-op (the silent default), nor for a level the logger says it drops (pino's
 * `isLevelEnabled`, asked each time: its level can change at run time). A line built per
 * request (a launch's outcome) is built only then.
 */
export function logsAt(logger: Logger, level: LogLevel): boolean {
  return logger[level] !== noop && logger.isLevelEnabled?.(level) !== false;
}

/** One stderr line: `[express-oral-assessments] <message> <the object as JSON>`. */
const consoleLine = (write: (line: string) => void): Logger["warn"] => (obj, msg) => write(`[express-oral-assessments] ${msg ?? ""} ${JSON.stringify(obj)}`);

/**
 * The router's default when no `logger` is given: loud about what someone must act on
 * (warnings and errors, one stderr line each through `console.warn` / `console.error`:
 * a 500, a store or gradebook failure, a refused LTI launch), quiet about the rest. The
 * objects logged never hold a key or a token (see the top of this file). Pass `logger: {}`
 * for silence, or a pino logger to route every level.
 */
export const consoleLogger: Logger = {
  debug: noop, info: noop,
  warn: consoleLine((line) => console.warn(line)),
  error: consoleLine((line) => console.error(line)),
};

/** `logger` filled in (`toLogger`), or `consoleLogger` when none is given. */
export const loudLogger = (logger: Partial<Logger> | undefined): Logger => (logger ? toLogger(logger) : consoleLogger);
