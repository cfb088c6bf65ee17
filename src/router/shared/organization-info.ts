/**
 * What the app's `organization(req)` resolver answers about the organization a request acts
 * for (DESIGN.md "v2"): data, not a client. The router builds the client from it.
 */
import type { Request } from "express";
import type { PlatformEnv } from "../../platform/types.js";

export type MaybePromise<T> = T | Promise<T>;

/** What `organization(req)` answers: one organization of the platform, by its own key. */
export interface OrganizationInfo {
  /** Stable, 1–64 letters, digits, `_ . -`: it scopes records, budgets, tokens and idempotency keys. */
  id: string;
  /** The organization's API key (`svc_`/`ct_` prefix decides the environment, as for `createPlatformClient`). */
  apiKey: string;
  /** The platform's base address. */
  baseUrl: string;
  /** The organization's custom exam domain (an origin). Default: unset, the platform's own host. */
  examHost?: string;
  /** Needed only for a key of neither prefix family. */
  env?: PlatformEnv;
}

export type OrganizationResolver = (req: Request) => MaybePromise<OrganizationInfo | undefined>;
