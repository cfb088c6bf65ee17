/**
 * Renamed options: the old name keeps working and says so at start-up (a warn line on the
 * factory's logger each time it is used, one DeprecationWarning per process and code), so
 * an integrator learns the new name before the alias goes. Each factory lists its renames
 * in one table; its reader folds the old names in, and it warns once its options are right.
 */
import type { ProblemList } from "./configuration-error.js";
import type { Logger } from "./logger.js";

const warned = new Set<string>();

/** One renamed option (a row of a factory's table). */
export interface Rename {
  /** The old name and the one to use instead, as written where they are read (`stateTtlSec`, `stateTtlMs` in `lti`). */
  old: string;
  use: string;
  /**
   * What the warn line names to use instead when that is not the one option `use` (an
   * object's fields lifted a level up; nothing, for an option that no longer does
   * anything). Such a row is folded by its own reader, not by `foldRenames`. Default: `use`.
   */
  instead?: string;
  /** The old value in the new name's unit (seconds → ms). Default: the value as it is. */
  toNew?: (value: number) => number;
  /** The DeprecationWarning's code, e.g. `EOA_ROUTER_PREWARM`. */
  code: string;
  /** The warn line's and the DeprecationWarning's message. */
  message: string;
}

/** The renames whose old name `given` (an options object, or anything else) holds. */
const usedIn = (given: unknown, renames: readonly Rename[]) =>
  renames.filter((r) => (given as Record<string, unknown> | null | undefined)?.[r.old] !== undefined);

/**
 * The old names `given` holds, folded into `read` (what the reader read, each old name
 * checked as written, in its own unit): alone, its value is the new name's (`toNew`);
 * beside the new name, a problem at `at` + the old name. Without `read` (an object read
 * under the name given, so its problems are named so), only both names are refused.
 */
export function foldRenames(
  given: unknown, renames: readonly Rename[], problems: ProblemList, at = "", read: Record<string, unknown> = {},
): void {
  for (const r of usedIn(given, renames)) {
    if ((given as Record<string, unknown>)[r.use] !== undefined) {
      problems.add(at + r.old, `is the deprecated name of ${r.use}, and both are set.`, `Keep only ${r.use}.`);
    } else if (read[r.old] !== undefined) read[r.use] = r.toNew ? r.toNew(read[r.old] as number) : read[r.old];
  }
}

/** Once the options are known to be right: each old name given warns (`event` on `logger`, `at` before the names). */
export function warnRenames(logger: Logger, event: string, given: unknown, renames: readonly Rename[], at = ""): void {
  for (const r of usedIn(given, renames)) {
    logger.warn({ event, option: at + r.old, use: r.instead ?? at + r.use }, r.message);
    if (!warned.has(r.code)) process.emitWarning(r.message, { type: "DeprecationWarning", code: r.code });
    warned.add(r.code);
  }
}
