/**
 * The prepare feature's settings: the `prepare` option (or its deprecated alias
 * `prewarm`) and the `roster` option, resolved and checked. Problems name the option the
 * integrator actually used (`prewarm.budgetShare` for a `prewarm` object).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import type { Logger } from "../../core/logger.js";
import type { OralAssessmentsOptions } from "../shared/options.js";
import { warnDeprecated } from "../../core/deprecation.js";
import { fn, optional, ratio, readObject, readOptions, wholeNumber, withDefault, type OptionsOf } from "../../core/option-schema.js";

/** The `prepare` option (alias `prewarm`) as a schema. */
export const prepareSchema = {
  tokenTtlMs: withDefault(wholeNumber(1, undefined, "ms"), 600_000),
  minTokenLifeMs: withDefault(wholeNumber(0, undefined, "ms"), 120_000),
  /** Default: auto, from the roster (see `PrepareOptions.leadMs`). */
  leadMs: optional(wholeNumber(0, undefined, "ms"), { fix: "Leave it out for the automatic lead (from the roster's size)." }),
  keepAfterStartMs: withDefault(wholeNumber(0, undefined, "ms"), 600_000),
  keepFinishedMs: withDefault(wholeNumber(0, undefined, "ms"), 3_600_000),
  budgetShare: withDefault(ratio(0, 1, { minExclusive: true }), 0.5),
  concurrency: withDefault(wholeNumber(1), 4),
  maxRoster: withDefault(wholeNumber(1), 5_000),
};

/** The schema's fields (`leadMs` undefined: computed from the roster), and the `roster` option. */
export type PrepareSettings = OptionsOf<typeof prepareSchema> & { roster: OralAssessmentsOptions["roster"] };

export function resolvePrepareSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList): PrepareSettings {
  if (o.prepare !== undefined && o.prewarm !== undefined) {
    problems.add("prewarm", "is the deprecated name of prepare, and both are set.", "Keep only prepare.");
  }
  const name = o.prepare === undefined && o.prewarm !== undefined ? "prewarm" : "prepare";
  const p = readObject(prepareSchema, o[name], problems, name, ["must be an object.", "Pass { tokenTtlMs, … } or leave it out."]);
  if (p.minTokenLifeMs >= p.tokenTtlMs) {
    problems.add(`${name}.minTokenLifeMs`, `(${p.minTokenLifeMs}) must be less than ${name}.tokenTtlMs (${p.tokenTtlMs}).`, "A token must be usable for some time after it is issued.");
  }
  const { roster } = readOptions({ roster: optional(fn<PrepareSettings["roster"]>(), { fix: "Pass (classId, examId) => students, or leave it out." }) }, o, problems);
  return { ...p, roster };
}

/**
 * The deprecated `prewarm` still works; a router built with it says so on its logger, and
 * the process gets one DeprecationWarning (as `redisFleet`'s old `rateLimit` does), so an
 * integrator learns the new name before the alias goes.
 */
export function warnIfPrewarm(o: Partial<OralAssessmentsOptions>, logger: Logger): void {
  if (o.prewarm === undefined) return;
  warnDeprecated(logger, {
    event: "router_option_deprecated", option: "prewarm", use: "prepare", code: "EOA_ROUTER_PREWARM",
    message: "oralAssessments()'s prewarm option is deprecated: call it prepare (same fields, same effect).",
  });
}
