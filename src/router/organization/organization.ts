/**
 * What a request's organization is to the router: its id, its platform client and exam
 * host, and what the router built for it. Its own file: the cache's entries (entry.ts)
 * implement it, and the cache (organizations.ts) holds those entries.
 */
import type { PlatformClient } from "../../platform/types.js";

/** The organization a request acts for, with everything the router built for it. */
export interface Organization<S = unknown> {
  readonly id: string;
  /** The organization's client: always its latest key (a rotated key swaps what it calls through). */
  readonly platform: PlatformClient;
  /** Undefined: students go to the platform's own host, and need no sign-in token. */
  readonly examHost: string | undefined;
  /** What the router keeps for this organization (its routes, caches and attempts). */
  readonly scope: S;
}
