/**
 * The first step of every URL option (the platform's `baseUrl`, an origin, …): a non-empty
 * string that parses as an absolute URL. What a URL must be beyond that differs per
 * option; this part, and its one problem, does not.
 */
import type { ProblemList } from "./configuration-error.js";

/**
 * `value` parsed, or undefined with one problem at `option`: `notString` when it is not a
 * non-empty string, `notUrl(value)` when it does not parse; `fix` for both.
 */
export function readUrl(value: unknown, option: string, problems: ProblemList, fix: string, notString: string, notUrl: (value: string) => string): URL | undefined {
  if (typeof value !== "string" || value === "") problems.add(option, notString, fix);
  else if (!URL.canParse(value)) problems.add(option, notUrl(value), fix);
  else return new URL(value);
  return undefined;
}
