/**
 * `lti.roster`: how the course roster is read through NRPS (Names and Role Provisioning
 * Services 2.0) for *Prepare this exam for the course* (the fields' meaning: `LtiRosterOptions`
 * below). Every mistake is a problem of the router's one ConfigurationError.
 */
import { nested, wholeNumber, withDefault, type OptionsOf } from "../../core/option-schema.js";

export const ltiRosterSchema = {
  maxPages: withDefault(wholeNumber(1, 10_000), 200),
  pageSize: withDefault(wholeNumber(1, 1_000), 100),
  requestTimeoutMs: withDefault(wholeNumber(100, 120_000, "ms"), 10_000),
  formTtlMs: withDefault(wholeNumber(60_000, 86_400_000, "ms"), 3_600_000),
  maxBytes: withDefault(wholeNumber(1_048_576, 1_073_741_824, "bytes"), 134_217_728),
};

export type LtiRosterSettings = OptionsOf<typeof ltiRosterSchema>;

/** The whole option, a field of the `lti` option's parts (settings.ts): an unknown name is a problem too. */
export const ltiRosterOption = nested(ltiRosterSchema, { fix: "See docs/lti.md (Prepare this exam for the course), or leave lti.roster out." }, { strict: true });

/** `lti.roster`: how the course roster is read through NRPS (Names and Role Provisioning Services 2.0). */
export interface LtiRosterOptions {
  /**
   * Pages of members read at most (Canvas answers 50 a page: 200 pages are 10,000
   * members), 1-10 000. A roster with a `next` page left after this many is refused, not
   * cut short. Default 200.
   */
  maxPages?: number;
  /** Members asked per page (`limit`; an LMS may answer fewer: Canvas caps at 50, Schoology 100), 1-1 000. Default 100. */
  pageSize?: number;
  /** Time limit of one NRPS page or token request, ms (100-120 000). Default 10 000. */
  requestTimeoutMs?: number;
  /** How long the *Prepare this exam for the course* form stays usable after the instructor's launch, ms (60 000-86 400 000). Default 3 600 000 (an hour). */
  formTtlMs?: number;
  /**
   * Bytes of NRPS answers read at most for one roster (all its pages together), 1 MiB-1 GiB.
   * A roster past it is refused, not cut short. Default 134 217 728 (128 MiB: Canvas's
   * members are about 500 bytes each, so some 250,000 of them).
   */
  maxBytes?: number;
}
