/**
 * The `launchExports` option's public type: beside `options.ts` (which would pass the
 * team's 300-line limit with it), in `shared/` for the same reason as its neighbours.
 */

/**
 * Caps on launch-record exports open at once: the launch record's pages (`GET
 * …/launches`, JSON with the gradebook's entries, or the whole record as CSV), counted
 * while each is answered. One beyond a cap gets 429 problem+json with `Retry-After`,
 * before anything is read from the store. A client that reads nothing holds its place
 * (and at most one page of rows) until `stalledMs` lets it go.
 */
export interface LaunchExportOptions {
  /** Exports one signed-in user may hold open at once (every exam). Default 5. */
  maxExportsPerUser?: number;
  /** Exports one organization's users may hold open at once. Default 100. */
  maxExportsPerOrganization?: number;
  /** Exports this router holds open at once, every organization (one router per process: per process). Default 1000. */
  maxExports?: number;
  /** A CSV export whose client reads nothing for this long is let go (its socket closed), ms. Default 120 000 (2 minutes). */
  stalledMs?: number;
}
