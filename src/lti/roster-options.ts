/**
 * `lti.roster`: how the course roster is read through NRPS (Names and Role Provisioning
 * Services 2.0) for *Prepare this exam for the course*. A zod schema: every mistake is a
 * problem of the router's one ConfigurationError.
 */
import { z } from "zod";
import type { ProblemList } from "../core/configuration-error.js";

export const ltiRosterOptionsSchema = z.object({
  /**
   * Pages of members read at most (Canvas answers 50 a page: 200 pages are 10,000
   * members). A roster with a `next` page left after this many is refused, not cut short.
   * Default 200.
   */
  maxPages: z.number().int().min(1).max(10_000).optional(),
  /** Members asked per page (`limit`; an LMS may answer fewer: Canvas caps at 50, Schoology 100). Default 100. */
  pageSize: z.number().int().min(1).max(1_000).optional(),
  /** Time limit of one NRPS page or token request, ms. Default 10 000. */
  requestTimeoutMs: z.number().int().min(100).max(120_000).optional(),
  /** How long the *Prepare this exam for the course* form stays usable after the instructor's launch, ms. Default 3 600 000 (an hour). */
  formTtlMs: z.number().int().min(60_000).max(86_400_000).optional(),
}).strict();

export type LtiRosterOptions = z.input<typeof ltiRosterOptionsSchema>;

export interface LtiRosterSettings {
  maxPages: number;
  pageSize: number;
  requestTimeoutMs: number;
  formTtlMs: number;
}

export const LTI_ROSTER_DEFAULTS: LtiRosterSettings = { maxPages: 200, pageSize: 100, requestTimeoutMs: 10_000, formTtlMs: 3_600_000 };

export function readLtiRoster(value: unknown, problems: ProblemList): LtiRosterSettings {
  if (value === undefined) return { ...LTI_ROSTER_DEFAULTS };
  const parsed = ltiRosterOptionsSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.add(`lti.roster${issue.path.length ? `.${issue.path.join(".")}` : ""}`, issue.message, "See docs/lti.md (Prepare this exam for the course) for each field and its default, or leave lti.roster out.");
    }
    return { ...LTI_ROSTER_DEFAULTS };
  }
  return { ...LTI_ROSTER_DEFAULTS, ...Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) };
}
