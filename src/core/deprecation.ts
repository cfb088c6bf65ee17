/**
 * Deprecated option names keep working and say so at start-up: a warn line on the
 * factory's logger each time one is used, and one DeprecationWarning per process and code,
 * so an integrator learns the new name before the alias goes.
 */
import type { Logger } from "./logger.js";

const warned = new Set<string>();

export interface Deprecation {
  /** The log event, e.g. `router_option_deprecated`. */
  event: string;
  /** The old name, as the integrator wrote it (`prewarm`, `lti.stateTtlSec`). */
  option: string;
  /** The name to use instead. */
  use: string;
  message: string;
  /** The DeprecationWarning's code, e.g. `EOA_ROUTER_PREWARM`. */
  code: string;
}

export function warnDeprecated(logger: Logger, d: Deprecation): void {
  logger.warn({ event: d.event, option: d.option, use: d.use }, d.message);
  if (warned.has(d.code)) return;
  warned.add(d.code);
  process.emitWarning(d.message, { type: "DeprecationWarning", code: d.code });
}
