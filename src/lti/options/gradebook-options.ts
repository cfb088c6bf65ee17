/**
 * `lti.gradebook`: the LMS gradebook (LTI AGS) as a schema (the fields' meaning:
 * `GradebookOptions` in ../options.ts). Leave it out for the defaults; `false` turns the
 * gradebook off (no line items, no scores, `GET /lti/return` answers its page without
 * posting anything).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { flag, nested, ratio, readObject, wholeNumber, withDefault, type OptionsOf } from "../../core/option-schema.js";
import { text } from "../shared/shared-options.js";

const HOUR_MS = 3_600_000;

export const gradebookSchema = {
  // A whole number: Open edX keeps a line item's scoreMaximum as an integer.
  scoreMaximum: withDefault(wholeNumber(1, 1_000_000), 100),
  gradesReleased: withDefault(flag(), false),
  tag: withDefault(text(255), "oral-assessment"),
  returnMarkMaxAgeMs: withDefault(wholeNumber(60_000, 7 * 24 * HOUR_MS, "ms"), 12 * HOUR_MS),
  pollMs: withDefault(wholeNumber(10, 60_000, "ms"), 1_000),
  batchSize: withDefault(wholeNumber(1, 500), 20),
  concurrency: withDefault(wholeNumber(1, 64), 4),
  leaseMs: withDefault(wholeNumber(1_000, HOUR_MS, "ms"), 60_000),
  firstRetryMs: withDefault(wholeNumber(10, HOUR_MS, "ms"), 2_000),
  maxRetryMs: withDefault(wholeNumber(10, 24 * HOUR_MS, "ms"), HOUR_MS),
  maxAttempts: withDefault(wholeNumber(1, 1_000), 48),
  perLmsConcurrency: withDefault(wholeNumber(1, 16), 2),
  scoreTimeoutMs: withDefault(wholeNumber(100, 120_000, "ms"), 5_000),
  retentionDays: withDefault(ratio(0, 36_500, { minExclusive: true }), 180, { unit: "days" }),
  returnLimit: nested({
    burst: withDefault(wholeNumber(1), 600),
    refillMs: withDefault(wholeNumber(1, undefined, "ms"), 100),
  }),
};

export type GradebookSettings = OptionsOf<typeof gradebookSchema>;

/** `lti.gradebook` read: undefined when turned off; every mistake on the router's problem list. */
export function readGradebookOptions(value: unknown, problems: ProblemList): GradebookSettings | undefined {
  if (value === false) return undefined;
  return readObject(gradebookSchema, value ?? undefined, problems, "lti.gradebook",
    ["must be an object, or false to turn the gradebook off.", "See docs/lti.md (The gradebook), or leave lti.gradebook out for the defaults."], true);
}
