/**
 * Which organization a request acts for, and its platform client.
 *
 * The shape (decided once): the integrator returns *data* about the organization per
 * request (`organization(req) → { id, apiKey, baseUrl, examHost }`), and the router builds,
 * caches and scopes everything behind it, as Clerk's `clerkMiddleware((req) => …)` and
 * Slack Bolt's `authorize` do. A client per (organization, key) from a cache, rather than
 * one client taking a key per call as stripe-node does, because the client is where
 * per-key state lives: the rate budget's window, the keep-alive sockets, the circuit
 * breaker's scope. A new key is a new fingerprint, so a new client: rotation needs no
 * restart, and the old client leaves the cache when idle.
 *
 * - The single-organization options (`platform`, `examHost`) are the same path with a
 *   constant answer: organization `DEFAULT_ORGANIZATION`, the given client.
 * - Resolved once per request (memoised on it); `undefined` means the request has no
 *   organization (the routes answer 404); a resolver that throws, or answers something
 *   unusable, is `OrganizationUnavailable` (503), logged once, never with the key.
 * - Clients are cached per (organization id, HMAC of the key under a key of this router's
 *   own: never the key, never a plain hash) in a bounded cache with idle expiry.
 * - `again(req)` is the 401 path: the platform refused a cached key, so its client is
 *   dropped and the resolver asked once more (a rotated key comes back as a new client).
 */
import { createHmac, randomBytes } from "node:crypto";
import type { Request } from "express";
import { ConfigurationError, ProblemList } from "../../core/configuration-error.js";
import { redactKey } from "../../core/redact.js";
import { IdleCache } from "../../core/idle-cache.js";
import type { Logger } from "../../core/logger.js";
import { createPlatformClient } from "../../platform/client.js";
import type { RateBudget } from "../../platform/rate-budget-interface.js";
import type { PlatformClient, PlatformClientOptions, PlatformEnv } from "../../platform/types.js";
import { DEFAULT_ORGANIZATION, isOrganizationId } from "../../store/types.js";
import { checkOrigin } from "../shared/checks.js";
import type { MaybePromise } from "../shared/options.js";

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

/** The organization a request acts for, with everything the router built for it. */
export interface Organization {
  readonly id: string;
  readonly platform: PlatformClient;
  /** Undefined: students go to the platform's own host, and need no sign-in token. */
  readonly examHost: string | undefined;
}

/** Thrown when the resolver failed or answered something unusable: the routes answer 503. */
export class OrganizationUnavailable extends Error {
  override readonly name = "OrganizationUnavailable";
}

export interface OrganizationCacheSettings {
  /** Most organizations' clients kept at once. */
  max: number;
  /** A client unused this long is closed and forgotten, ms. */
  idleMs: number;
}

export type OrganizationSource =
  | { kind: "single"; platform: PlatformClient; examHost: string | undefined }
  | { kind: "resolver"; resolve: OrganizationResolver; client: Partial<PlatformClientOptions>; cache: OrganizationCacheSettings };

/** How long a client evicted under pressure stays open for the calls it may still carry (the longest launch wait). */
const CLOSE_AFTER_MS = 150_000;

export class Organizations {
  private readonly memo = new WeakMap<Request, Promise<Organization | undefined>>();
  private readonly clients: IdleCache<string, Organization> | undefined;
  /** The key the fingerprints are HMACs under: this router's own, random, never stored. */
  private readonly fingerprintKey = randomBytes(32);
  private readonly single: Organization | undefined;

  constructor(
    private readonly source: OrganizationSource,
    /** The rate budget a new client of (organization, key fingerprint) shares, in fleet mode; undefined: the client's own. */
    private readonly budgetFor: (organizationId: string, keyFingerprint: string) => RateBudget | undefined,
    private readonly logger: Logger,
  ) {
    if (source.kind === "single") {
      this.single = { id: DEFAULT_ORGANIZATION, platform: source.platform, examHost: source.examHost };
    } else {
      this.clients = new IdleCache<string, Organization>({
        ...source.cache,
        // Unused for idleMs, it carries no call; pushed out while full, it may: closed a little later.
        onEvict: (org) => setTimeout(() => org.platform.close(), CLOSE_AFTER_MS).unref(),
      });
    }
  }

  /** The request's organization (memoised on the request); undefined: it has none. Rejects with OrganizationUnavailable. */
  of(req: Request): Promise<Organization | undefined> {
    if (this.single) return Promise.resolve(this.single);
    let found = this.memo.get(req);
    if (!found) {
      found = this.resolve(req);
      this.memo.set(req, found);
    }
    return found;
  }

  /**
   * After the platform refused `org`'s key (401): forgets its client and asks the resolver
   * once more. The organization it answers now (perhaps with a rotated key), or undefined.
   */
  async again(req: Request, org: Organization): Promise<Organization | undefined> {
    if (this.single) return undefined;
    this.clients!.delete(this.cacheKeyOf(org));
    const fresh = this.resolve(req);
    this.memo.set(req, fresh);
    return fresh;
  }

  /** A cached organization by id, for work without a request (a pre-warm plan taken over in a fleet). */
  known(id: string): Organization | undefined {
    if (this.single) return this.single.id === id ? this.single : undefined;
    return this.byId.get(id)?.deref();
  }

  close(): void {
    this.clients?.clear();
  }

  /** The last organization built for each id (weakly: the cache decides how long it lives). */
  private readonly byId = new Map<string, WeakRef<Organization>>();
  private readonly cacheKeys = new WeakMap<Organization, string>();

  private cacheKeyOf(org: Organization): string {
    return this.cacheKeys.get(org) ?? "";
  }

  private async resolve(req: Request): Promise<Organization | undefined> {
    const { resolve, client } = this.source as Extract<OrganizationSource, { kind: "resolver" }>;
    let info: OrganizationInfo | undefined;
    try {
      info = await resolve(req);
    } catch (error) {
      this.logger.error({ event: "organization_resolver_failed", error: messageOf(error) }, "the organization resolver threw");
      throw new OrganizationUnavailable("The organization resolver failed.");
    }
    if (info === undefined || info === null) return undefined;
    const problems = checkInfo(info);
    if (problems.length > 0) {
      this.logger.error({ event: "organization_invalid", problems }, "the organization resolver answered something unusable");
      throw new OrganizationUnavailable("The organization resolver answered something unusable.");
    }
    const fingerprint = createHmac("sha256", this.fingerprintKey).update(info.apiKey).digest("hex").slice(0, 32);
    const cacheKey = `${info.id}\u0000${fingerprint}`;
    try {
      return this.clients!.get(cacheKey, () => {
        const rateBudget = this.budgetFor(info.id, fingerprint);
        const platform = createPlatformClient({
          ...client, apiKey: info.apiKey, baseUrl: info.baseUrl, ...(info.env ? { env: info.env } : {}), ...(rateBudget ? { rateBudget } : {}),
        });
        const org: Organization = { id: info.id, platform, examHost: info.examHost === undefined ? undefined : new URL(info.examHost).origin };
        this.cacheKeys.set(org, cacheKey);
        this.byId.set(info.id, new WeakRef(org));
        return org;
      });
    } catch (error) {
      // createPlatformClient's ConfigurationError shows keys only redacted.
      const details = error instanceof ConfigurationError ? error.problems.map((p) => `${p.option} ${p.message}`) : [messageOf(error)];
      this.logger.error({ event: "organization_invalid", organization: info.id, problems: details }, "the organization's client could not be built");
      throw new OrganizationUnavailable("The organization's client could not be built.");
    }
  }
}

/** What is wrong with a resolver's answer, as text that never holds the key. */
function checkInfo(info: OrganizationInfo): string[] {
  if (info === null || typeof info !== "object") return ["the answer is not an object"];
  const problems: string[] = [];
  if (!isOrganizationId(info.id)) problems.push("id must be 1-64 letters, digits, _ . or -");
  if (typeof info.apiKey !== "string" || info.apiKey === "") problems.push("apiKey is missing");
  if (typeof info.baseUrl !== "string" || info.baseUrl === "") problems.push("baseUrl is missing");
  if (info.examHost !== undefined) {
    const list = new ProblemList();
    if (checkOrigin(info.examHost, "examHost", list, true) === undefined) problems.push("examHost must be an origin (https; http only for localhost)");
  }
  return problems;
}

/**
 * A thrown error's message for the log. The resolver is the integrator's code and may
 * have the key in hand: anything key-like is redacted whatever it is.
 */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/(svc|ct)_(live|test)_\S+/g, (key) => redactKey(key)).replace(/Bearer\s+\S+/g, "Bearer [redacted]");
}
