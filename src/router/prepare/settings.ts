/**
 * The prepare feature's settings: the `prepare` option (or its deprecated alias
 * `prewarm`) and the `roster` option, resolved and checked. Problems name the option the
 * integrator actually used (`prewarm.budgetShare` for a `prewarm` object).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import type { Logger } from "../../core/logger.js";
import type { StudentIdentity } from "../../platform/schemas.js";
import type { MaybePromise, OralAssessmentsOptions, PrepareOptions } from "../shared/options.js";
import { wholeMs } from "../shared/checks.js";

export interface PrepareSettings {
  tokenTtlMs: number;
  minTokenLifeMs: number;
  /** Undefined: computed from the roster (see `PrepareOptions.leadMs`). */
  leadMs: number | undefined;
  keepAfterStartMs: number;
  keepFinishedMs: number;
  budgetShare: number;
  concurrency: number;
  maxRoster: number;
  /** The `roster` option: students of a class when a prepare request carries none. */
  roster: ((classId: string, examId: string) => MaybePromise<StudentIdentity[] | undefined>) | undefined;
}

export function resolvePrepareSettings(o: Partial<OralAssessmentsOptions>, problems: ProblemList): PrepareSettings {
  if (o.prepare !== undefined && o.prewarm !== undefined) {
    problems.add("prewarm", "is the deprecated name of prepare, and both are set.", "Keep only prepare.");
  }
  const name = o.prepare === undefined && o.prewarm !== undefined ? "prewarm" : "prepare";
  const input = o.prepare ?? o.prewarm;
  const p = (input ?? {}) as Partial<PrepareOptions>;
  if (input !== undefined && (input === null || typeof input !== "object")) problems.add(name, "must be an object.", "Pass { tokenTtlMs, … } or leave it out.");
  const tokenTtlMs = wholeMs(problems, `${name}.tokenTtlMs`, p.tokenTtlMs, 600_000, 1);
  const minTokenLifeMs = wholeMs(problems, `${name}.minTokenLifeMs`, p.minTokenLifeMs, 120_000, 0);
  if (minTokenLifeMs >= tokenTtlMs) {
    problems.add(`${name}.minTokenLifeMs`, `(${minTokenLifeMs}) must be less than ${name}.tokenTtlMs (${tokenTtlMs}).`, "A token must be usable for some time after it is issued.");
  }
  const leadMs = p.leadMs === undefined ? undefined : wholeMs(problems, `${name}.leadMs`, p.leadMs, 0, 0);
  const keepAfterStartMs = wholeMs(problems, `${name}.keepAfterStartMs`, p.keepAfterStartMs, 600_000, 0);
  const keepFinishedMs = wholeMs(problems, `${name}.keepFinishedMs`, p.keepFinishedMs, 3_600_000, 0);
  const budgetShare = p.budgetShare ?? 0.5;
  if (typeof budgetShare !== "number" || !(budgetShare > 0 && budgetShare <= 1)) {
    problems.add(`${name}.budgetShare`, "must be a number above 0 and at most 1.", "Leave it out for 0.5.");
  }
  const concurrency = wholeMs(problems, `${name}.concurrency`, p.concurrency, 4, 1);
  const maxRoster = wholeMs(problems, `${name}.maxRoster`, p.maxRoster, 5_000, 1);
  if (o.roster !== undefined && typeof o.roster !== "function") {
    problems.add("roster", `must be a function, got ${typeof o.roster}.`, "Pass (classId, examId) => students, or leave it out.");
  }
  return { tokenTtlMs, minTokenLifeMs, leadMs, keepAfterStartMs, keepFinishedMs, budgetShare, concurrency, maxRoster, roster: o.roster };
}

let warnedPrewarm = false;

/**
 * The deprecated `prewarm` still works; a router built with it says so on its logger, and
 * the process gets one DeprecationWarning (as `redisFleet`'s old `rateLimit` does), so an
 * integrator learns the new name before the alias goes.
 */
export function warnIfPrewarm(o: Partial<OralAssessmentsOptions>, logger: Logger): void {
  if (o.prewarm === undefined) return;
  const message = "oralAssessments()'s prewarm option is deprecated: call it prepare (same fields, same effect).";
  logger.warn({ event: "router_option_deprecated", option: "prewarm", use: "prepare" }, message);
  if (warnedPrewarm) return;
  warnedPrewarm = true;
  process.emitWarning(message, { type: "DeprecationWarning", code: "EOA_ROUTER_PREWARM" });
}
