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
}

const noop = (): void => {};

/** The default: quiet. A library should not write to stdout unless asked to. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** Fills the methods a partial logger (e.g. `console`-like objects) lacks. */
export function toLogger(logger: Partial<Logger> | undefined): Logger {
  if (!logger) return silentLogger;
  const bind = (fn: Logger[keyof Logger] | undefined): Logger["info"] =>
    typeof fn === "function" ? fn.bind(logger) : noop;
  return { debug: bind(logger.debug), info: bind(logger.info), warn: bind(logger.warn), error: bind(logger.error) };
}
