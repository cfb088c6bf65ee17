/**
 * How many launch-record exports may be open at once (the `launchExports` option): per
 * user, per organization and per router, as live views are. An export is any answer of
 * `GET …/launches`, a JSON page (with the gradebook's entries) or the whole record as CSV,
 * counted from before the store is read until its answer is out or its client gone. One
 * beyond a cap is refused with 429 problem+json and `Retry-After`, nothing read.
 */
import { OpenLimits } from "./open-limits.js";

/** The `launchExports` option, by the option's names. */
export interface ExportLimitSettings {
  maxExportsPerUser: number;
  maxExportsPerOrganization: number;
  maxExports: number;
  /** A CSV export whose client reads nothing for this long is let go, ms. */
  stalledMs: number;
}

export class ExportLimits extends OpenLimits {
  readonly stalledMs: number;

  constructor({ maxExportsPerUser, maxExportsPerOrganization, maxExports, stalledMs }: ExportLimitSettings) {
    super({
      perUser: maxExportsPerUser, perOrganization: maxExportsPerOrganization, perRouter: maxExports,
      names: ["launchExports", "maxExportsPerUser", "maxExportsPerOrganization", "maxExports"],
      what: "launch-record exports", code: "too_many_exports", title: "Too many exports open",
      // Most exports take seconds; a refused one is worth retrying soon.
      instead: "wait for one to finish, or close one.", retryAfterS: 10,
    });
    this.stalledMs = stalledMs;
  }
}
