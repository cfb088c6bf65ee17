/**
 * `lti.roster`: how the course roster is read through NRPS (Names and Role Provisioning
 * Services 2.0) for *Prepare this exam for the course* (the fields' meaning: `LtiRosterOptions`
 * in options.ts). Every mistake is a problem of the router's one ConfigurationError.
 */
import type { ProblemList } from "../core/configuration-error.js";
import { readObject, wholeNumber, withDefault, type OptionsOf } from "../core/option-schema.js";

export const ltiRosterSchema = {
  maxPages: withDefault(wholeNumber(1, 10_000), 200),
  pageSize: withDefault(wholeNumber(1, 1_000), 100),
  requestTimeoutMs: withDefault(wholeNumber(100, 120_000, "ms"), 10_000),
  formTtlMs: withDefault(wholeNumber(60_000, 86_400_000, "ms"), 3_600_000),
};

export type LtiRosterSettings = OptionsOf<typeof ltiRosterSchema>;

export function readLtiRoster(value: unknown, problems: ProblemList): LtiRosterSettings {
  return readObject(ltiRosterSchema, value, problems, "lti.roster",
    ["must be an object { maxPages, pageSize, requestTimeoutMs, formTtlMs }.", "See docs/lti.md (Prepare this exam for the course), or leave lti.roster out."], true);
}
