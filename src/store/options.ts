/**
 * Checks shared by the store factories' options. A typo'd option (`connectonString`) is
 * reported instead of ignored: silently falling back to a default database is the kind
 * of mistake that shows up weeks later as "where did our records go?".
 */
import type { ProblemList } from "../core/configuration-error.js";

/** The options as a record to read fields from; empty (after reporting why) when they are not an object. */
export function readOptions(
  problems: ProblemList,
  options: unknown,
  known: readonly string[],
): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    problems.add("options", `must be an object, got ${kindOf(options)}.`, `Pass an object such as { ${known[0]}: … } or nothing.`);
    return {};
  }
  const record = options as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) {
      problems.add(key, "is not an option of this store.", `Remove it, or use one of: ${known.join(", ")}.`);
    }
  }
  return record;
}

/** A short, secret-free description of a value for a problem message. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value.length === 0 ? "an empty string" : "a string";
  return typeof value === "object" ? "an object" : `${typeof value}`;
}
