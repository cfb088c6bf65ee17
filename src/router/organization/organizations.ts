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
 * - Organizations are cached by id in a bounded cache with idle expiry (an organization
 *   with a running pre-warm plan stays). Each holds the client of its latest key, known by
 *   an HMAC of the key under a key of this router's own (never the key, never a plain
 *   hash): a resolver answering another key swaps the client at once, behind the same
 *   face, so the organization's scope (caches, attempts, plans) carries on with the new key.
 *   The answer the entry last took is kept with it (a private field): the same answer on
 *   the next request, as every request of a storm gives, is the cached organization at
 *   once, with no check, HMAC or URL parse (entry.ts `answered`).
 * - `again(req)` is the 401 path: the platform refused the key, so the resolver is asked
 *   once more; when it answers another key, the caller retries once.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { Request } from "express";
import { ConfigurationError } from "../../core/configuration-error.js";
import { IdleCache } from "../../core/idle-cache.js";
import type { Logger } from "../../core/logger.js";
import { createPlatformClient } from "../../platform/client.js";
import type { RateBudget } from "../../platform/rate-budget-interface.js";
import type { PlatformClient, PlatformClientOptions } from "../../platform/types.js";
import { DEFAULT_ORGANIZATION } from "../../store/types.js";
import type { OrganizationInfo, OrganizationResolver } from "../shared/organization-info.js";
import { checkInfo, messageOf } from "./answer-checks.js";
import { Entry } from "./entry.js";
import type { Organization } from "./organization.js";
import { InvalidOrganization, OrganizationUnavailable } from "./errors.js";

export { InvalidOrganization, OrganizationUnavailable } from "./errors.js";
export type { Organization } from "./organization.js";


/** What the router builds for each organization, and how it lets it go. */
export interface ScopeFactory<S> {
  /** `organization` is live: its `platform` and `examHost` follow the resolver's latest answer. */
  make(organization: Organization<undefined>): S;
  /** Still at work (a running plan): not closed for being idle. */
  busy(scope: S): boolean;
  close(scope: S): Promise<void>;
  /** The organization's client was replaced (a rotated key). */
  clientChanged?(scope: S): void;
}

export interface OrganizationCacheSettings {
  /** Most organizations kept at once (their clients and what the router keeps for them). */
  max: number;
  /** An organization unused this long (and with no running plan) is closed and forgotten, ms. */
  idleMs: number;
}

export type OrganizationSource =
  | { kind: "single"; platform: PlatformClient; examHost: string | undefined }
  | { kind: "resolver"; resolve: OrganizationResolver; client: Partial<PlatformClientOptions>; cache: OrganizationCacheSettings };

/** How long a replaced or evicted client stays open for the calls it may still carry (the longest launch wait). */
const CLOSE_AFTER_MS = 150_000;

export class Organizations<S> {
  /**
   * Where a request's answer is memoised: a property under this instance's own symbol (a
   * WeakMap entry per request cost a storm more, each one an ephemeron for the GC).
   */
  private readonly memo = Symbol("oralAssessmentsOrganization");
  private readonly cache: IdleCache<string, Entry<S>> | undefined;
  /** The key the fingerprints are HMACs under: this router's own, random, never stored. */
  private readonly fingerprintKey = randomBytes(32);
  private readonly single: Organization<S> | undefined;
  /** Set while the router closes: retired organizations close at once. */
  private closing: Promise<void>[] | undefined;

  constructor(
    private readonly source: OrganizationSource,
    /** The rate budget a new client shares, in fleet mode (it binds it to its key); undefined: the client's own. */
    private readonly budget: () => RateBudget | undefined,
    private readonly logger: Logger,
    private readonly scopes: ScopeFactory<S>,
  ) {
    if (source.kind === "single") {
      const org = { id: DEFAULT_ORGANIZATION, platform: source.platform, examHost: source.examHost, scope: undefined };
      this.single = { ...org, scope: scopes.make(org) };
    } else {
      this.cache = new IdleCache<string, Entry<S>>({
        ...source.cache,
        busy: (entry) => scopes.busy(entry.scope),
        onEvict: (entry, reason) => this.retire(entry, reason === "idle"),
      });
    }
  }

  /** The request's organization (memoised on the request); undefined: it has none. Rejects with OrganizationUnavailable. */
  of(req: Request): Promise<Organization<S> | undefined> {
    if (this.single) return Promise.resolve(this.single);
    const memo = req as unknown as Record<symbol, Promise<Organization<S> | undefined> | undefined>;
    return (memo[this.memo] ??= this.resolve(req));
  }

  /**
   * The 401 path: the platform refused `org`'s key. Asks the resolver once more; true when
   * it answered another key (now in use: a retry may succeed), false when it answered the
   * same key, none, or failed (a retry would be refused again).
   */
  async again(req: Request, org: Organization<S>): Promise<boolean> {
    if (this.single || !(org instanceof Entry)) return false;
    const before = org.fingerprint;
    const fresh = this.resolve(req);
    (req as unknown as Record<symbol, unknown>)[this.memo] = fresh;
    try {
      const answer = await fresh;
      return answer === org && org.fingerprint !== before;
    } catch {
      return false;
    }
  }

  /** An organization this instance holds now, by id, for work without a request. */
  known(id: string): Organization<S> | undefined {
    if (this.single) return this.single.id === id ? this.single : undefined;
    return this.cache!.peek(id);
  }

  /** True with a resolver (a refused key may be answered anew); false for the single organization. */
  get resolves(): boolean {
    return this.single === undefined;
  }

  /** How many organizations are held now. */
  get size(): number {
    return this.single ? 1 : this.cache!.size;
  }

  /** Closes every scope now (the router is closing: no call is left to carry). The app's own client is the app's to close. */
  async close(): Promise<void> {
    if (this.single) {
      await this.scopes.close(this.single.scope);
      return;
    }
    this.closing = [];
    this.cache!.clear();
    await Promise.all(this.closing);
  }

  /**
   * An organization leaves the cache: idle, it carries no call and closes now (nothing of
   * it stays in memory); pushed out while full, it closes after any call it carries.
   */
  private retire(entry: Entry<S>, idle: boolean): void {
    const close = async () => {
      await this.scopes.close(entry.scope).catch(() => undefined);
      entry.client.close();
    };
    if (this.closing) this.closing.push(close());
    else if (idle) void close();
    else setTimeout(() => void close(), CLOSE_AFTER_MS).unref();
  }

  /**
   * The organization `info` describes, given without a request (`router.prepare`): the
   * same cache, client and rotation as a resolver's answer. Throws `InvalidOrganization`
   * (what is wrong, never the key) for an unusable answer, and for a single-organization
   * router, which has no other organization to act for.
   */
  adopt(info: OrganizationInfo): Organization<S> {
    if (this.single) throw new InvalidOrganization(["is only for a router with the organization resolver (this one has platform)"]);
    const problems = checkInfo(info);
    if (problems.length > 0) throw new InvalidOrganization(problems);
    return this.entry(info);
  }

  private async resolve(req: Request): Promise<Organization<S> | undefined> {
    const { resolve } = this.source as Extract<OrganizationSource, { kind: "resolver" }>;
    let info: OrganizationInfo | undefined;
    try {
      info = await resolve(req);
    } catch (error) {
      this.logger.error({ event: "organization_resolver_failed", error: messageOf(error) }, "the organization resolver threw");
      throw new OrganizationUnavailable("The organization resolver failed.");
    }
    if (info === undefined || info === null) return undefined;
    const held = this.held(info);
    if (held) return held;
    const problems = checkInfo(info);
    if (problems.length > 0) {
      this.logger.error({ event: "organization_invalid", problems }, "the organization resolver answered something unusable");
      throw new OrganizationUnavailable("The organization resolver answered something unusable.");
    }
    try {
      return this.entry(info);
    } catch (error) {
      throw error instanceof InvalidOrganization ? new OrganizationUnavailable("The organization's client could not be built.") : error;
    }
  }

  /** The cached organization whose last answer `info` repeats (touched: it counts as used); undefined otherwise. */
  private held(info: OrganizationInfo): Entry<S> | undefined {
    if (typeof info !== "object" || typeof info.id !== "string") return undefined;
    const entry = this.cache!.touch(info.id);
    return entry?.answered(info) ? entry : undefined;
  }

  /** The cached organization of a checked answer, built or given the answer's key. Throws InvalidOrganization (logged). */
  private entry(info: OrganizationInfo): Organization<S> {
    // The client is built from the key, the base URL and the environment: any of them
    // changed is a new client (a new baseUrl with the same key is applied, not ignored).
    const fingerprint = createHmac("sha256", this.fingerprintKey).update(JSON.stringify([info.apiKey, info.baseUrl, info.env ?? null])).digest("hex").slice(0, 32);
    const examHost = info.examHost === undefined ? undefined : new URL(info.examHost).origin;
    try {
      const entry = this.cache!.get(info.id, () => {
        const made = new Entry<S>(info.id, this.client(info), fingerprint, examHost);
        made.scope = this.scopes.make(made as unknown as Organization<undefined>);
        return made;
      });
      if (entry.fingerprint !== fingerprint) {
        // A rotated key (or a moved base URL, another environment): used from this request
        // on; the old client finishes what it carries.
        const client = this.client(info);
        const old = entry.swap(client, fingerprint);
        this.scopes.clientChanged?.(entry.scope);
        setTimeout(() => old.close(), CLOSE_AFTER_MS).unref();
        const keyChanged = old.keyId !== client.keyId;
        this.logger.info?.({ event: keyChanged ? "organization_key_changed" : "organization_client_changed", organization: info.id },
          keyChanged ? "the organization's API key changed: a new client is in use" : "the organization's base URL or environment changed: a new client is in use");
      }
      entry.examHost = examHost;
      entry.remember(info);
      return entry;
    } catch (error) {
      // createPlatformClient's ConfigurationError shows keys only redacted.
      const details = error instanceof ConfigurationError ? error.problems.map((p) => `${p.option} ${p.message}`) : [messageOf(error)];
      this.logger.error({ event: "organization_invalid", organization: info.id, problems: details }, "the organization's client could not be built");
      throw new InvalidOrganization(details);
    }
  }

  private client(info: OrganizationInfo): PlatformClient {
    const { client } = this.source as Extract<OrganizationSource, { kind: "resolver" }>;
    const rateBudget = this.budget();
    return createPlatformClient({
      ...client, apiKey: info.apiKey, baseUrl: info.baseUrl, ...(info.env ? { env: info.env } : {}), ...(rateBudget ? { rateBudget } : {}),
    });
  }
}
