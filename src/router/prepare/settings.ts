/**
 * The prepare feature's settings: the `prepare` option (or its deprecated alias
 * `prewarm`) and the `roster` option, resolved and checked. Problems name the option the
 * integrator actually used (`prewarm.budgetShare` for a `prewarm` object).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import type { OralAssessmentsOptions } from "../shared/options.js";
import { foldRenames, type Rename } from "../../core/deprecation.js";
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

/** The `prepare` option's earlier name. */
export const PREPARE_RENAMES: Rename[] = [{ old: "prewarm", use: "prepare", code: "EOA_ROUTER_PREWARM",
  message: "oralAssessments()'s prewarm option is deprecated: call it prepare (same fields, same effect)." }];

export function resolvePrepareSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList): PrepareSettings {
  foldRenames(o, PREPARE_RENAMES, problems);
  const name = o.prepare === undefined && o.prewarm !== undefined ? "prewarm" : "prepare";
  const p = readObject(prepareSchema, o[name], problems, name, ["must be an object.", "Pass { tokenTtlMs, … } or leave it out."]);
  if (p.minTokenLifeMs >= p.tokenTtlMs) {
    problems.add(`${name}.minTokenLifeMs`, `(${p.minTokenLifeMs}) must be less than ${name}.tokenTtlMs (${p.tokenTtlMs}).`, "A token must be usable for some time after it is issued.");
  }
  const { roster } = readOptions({ roster: optional(fn<PrepareSettings["roster"]>(), { fix: "Pass (classId, examId) => students, or leave it out." }) }, o, problems);
  return { ...p, roster };
}
