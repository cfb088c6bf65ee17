/**
 * Bounded text: the one check of a string that comes from outside (a claim, a form field,
 * a stored key, an option) and must be neither missing nor unbounded. Lengths are
 * `String#length` (UTF-16 code units), as every limit the package documents counts them.
 */

/** What a text may be beyond a string of 1 or more characters. */
export interface TextRule {
  /** The fewest characters. Default: 1 (an empty string is no text). */
  min?: number;
  /** Measured without its surrounding white space (and `textOf` gives it so). Default: false. */
  trim?: boolean;
}

/** `value` is a string of `rule.min` (default 1) to `max` (default: no limit) characters. */
export function isText(value: unknown, max = Infinity, rule?: TextRule): value is string {
  if (typeof value !== "string") return false;
  const length = rule?.trim ? value.trim().length : value.length;
  return length >= (rule?.min ?? 1) && length <= max;
}

/** `value` when it `isText` (trimmed with `rule.trim`), else undefined. */
export function textOf(value: unknown, max = Infinity, rule?: TextRule): string | undefined {
  if (!isText(value, max, rule)) return undefined;
  return rule?.trim ? value.trim() : value;
}
