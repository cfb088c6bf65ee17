/**
 * `lti.roster`: how the course roster is read through NRPS (Names and Role Provisioning
 * Services 2.0) for *Prepare this exam for the course* (the fields' meaning: `LtiRosterOptions`
 * in options.ts). Every mistake is a problem of the router's one ConfigurationError.
 */
import { nested, wholeNumber, withDefault, type OptionsOf } from "../core/option-schema.js";

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
