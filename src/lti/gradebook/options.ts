/**
 * `lti.gradebook`: the LMS gradebook (LTI AGS) as a zod schema. Every duration in
 * milliseconds. Leave it out for the defaults; `false` turns the gradebook off (no line
 * items, no scores, `GET /lti/return` answers its page without posting anything).
 */
import { z } from "zod";
import type { ProblemList } from "../../core/configuration-error.js";
import { issuesOf } from "../../platform/schemas.js";

const ms = (min: number, max: number) => z.number().int().min(min).max(max);

export const GradebookOptionsSchema = z.strictObject({
  /** The line item's `scoreMaximum` when the tool creates it (deep linking, or Brightspace's missing item). Default 100. */
  scoreMaximum: z.number().positive().max(1_000_000).default(100),
  /** The line item's `tag`: how the tool finds its own items among the course's. Default `"oral-assessment"`. */
  tag: z.string().min(1).max(255).default("oral-assessment"),
  /** How long a launch's return mark (the signed cookie `GET /lti/return` reads) lives, ms. Default 43 200 000 (12 h: the longest exam day). */
  returnMarkMaxAgeMs: ms(60_000, 7 * 24 * 3_600_000).default(12 * 3_600_000),
  /** How often the outbox looks for due scores, ms (a queued score also wakes it at once). Default 1 000. */
  pollMs: ms(10, 60_000).default(1_000),
  /** Scores claimed per look. Default 20. */
  batchSize: z.number().int().min(1).max(500).default(20),
  /** Score posts in flight at once per instance: the LMS's pace. Default 4. */
  concurrency: z.number().int().min(1).max(64).default(4),
  /** How long a claimed score is this instance's before another may take it (a crash mid-post), ms. Default 60 000. */
  leaseMs: ms(1_000, 3_600_000).default(60_000),
  /** The first retry's delay, ms; each next one doubles (with ±20 % jitter). Default 2 000. */
  firstRetryMs: ms(10, 3_600_000).default(2_000),
  /** The longest delay between retries, ms. Default 3 600 000 (1 h). */
  maxRetryMs: ms(10, 24 * 3_600_000).default(3_600_000),
  /** Attempts before a score is given up as `failed` (the launch record shows it). Default 48 (about two days at the longest delay). */
  maxAttempts: z.number().int().min(1).max(1_000).default(48),
});

export type GradebookSettings = z.output<typeof GradebookOptionsSchema>;
export type GradebookOptions = z.input<typeof GradebookOptionsSchema>;

/** `lti.gradebook` read: undefined when turned off; every mistake on the router's problem list. */
export function readGradebookOptions(value: unknown, problems: ProblemList): GradebookSettings | undefined {
  if (value === false) return undefined;
  const parsed = GradebookOptionsSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  for (const issue of issuesOf(parsed.error)) {
    problems.add(`lti.gradebook${issue.path === "(body)" ? "" : `.${issue.path}`}`, issue.message, "See docs/lti.md (The gradebook), or leave lti.gradebook out for the defaults.");
  }
  return undefined;
}
