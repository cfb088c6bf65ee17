/**
 * Where the LTI routes find a registration: `lti.registrations` first (an option always
 * wins over a stored registration with the same issuer and client id), then the store,
 * where Dynamic Registration writes. The store's list is kept for `cacheMs`; a lookup that
 * misses reads it again (at most once per `missRefreshMs`), so a registration stored by
 * another instance, or activated by an administrator's script, works without a restart
 * (within `missRefreshMs`), and a stream of made-up issuers cannot turn into a stream
 * of database reads. A deactivation made elsewhere is seen within `cacheMs`.
 *
 * The frame-ancestors list (the LMS origins allowed to frame the tool) is one live array,
 * refreshed with the list: every page answered after a refresh carries it.
 */
import type { Logger } from "../../core/logger.js";
import type { LtiRegistrationRecord, OralStoreLti } from "../../store/lti-types.js";
import { Registrations, type Lookup, type Registration } from "./registrations.js";

export interface RegistrationSourceOptions {
  /** How long the store's list is trusted, ms. Default 5 000 (also the longest wait for an activation made elsewhere). */
  cacheMs?: number;
  /** Least time between two reads forced by a lookup that missed, ms. Default 1 000. */
  missRefreshMs?: number;
}

function fromRecord(r: LtiRegistrationRecord): Registration {
  return {
    issuer: r.issuer, clientId: r.clientId, authorizationUrl: r.authorizationUrl, jwksUrl: r.jwksUrl, tokenUrl: r.tokenUrl,
    deployments: new Map(r.deployments.map((d) => [d.id, d.organization])),
    active: r.active, acceptNewDeployments: r.acceptNewDeployments, organization: r.organization, source: "store",
  };
}

export class RegistrationSource {
  /** The LMS origins allowed to frame the tool: mutated in place, so every holder sees the latest. */
  readonly frameAncestors: string[];
  private combined: Registrations;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly cacheMs: number;
  private readonly missRefreshMs: number;

  constructor(
    private readonly fromOptions: Registrations,
    private readonly store: OralStoreLti,
    private readonly logger: Logger,
    options: RegistrationSourceOptions = {},
  ) {
    this.combined = fromOptions;
    this.frameAncestors = fromOptions.origins();
    this.cacheMs = options.cacheMs ?? 5_000;
    this.missRefreshMs = options.missRefreshMs ?? 1_000;
  }

  /** The registrations as of at most `cacheMs` ago (read from the store when older). */
  async current(): Promise<Registrations> {
    if (Date.now() - this.readAt > this.cacheMs) await this.refresh();
    return this.combined;
  }

  /**
   * Options first, then the store. A miss, or an inactive registration (its activation may
   * have been stored since), reads the store again unless it was read just now.
   */
  async find(issuer: string, clientId: string | undefined): Promise<Lookup> {
    const first = (await this.current()).find(issuer, clientId);
    const settled = "found" in first ? first.found.active : first.problem === "ambiguous_issuer";
    if (settled) return first;
    return this.reread(issuer, clientId);
  }

  /** The store read again (unless it was read within `missRefreshMs`): a deployment added since, say. */
  async reread(issuer: string, clientId: string | undefined): Promise<Lookup> {
    if (Date.now() - this.readAt >= this.missRefreshMs) await this.refresh();
    return this.combined.find(issuer, clientId);
  }

  /** Forgets the cached list (after this instance stored a registration). */
  invalidate(): void {
    this.readAt = Number.NEGATIVE_INFINITY;
  }

  /**
   * Records a deployment first seen at a verified launch of a stored registration that
   * accepts new deployments, naming the registration's organization.
   */
  async recordDeployment(registration: Registration, deploymentId: string): Promise<void> {
    const organization = registration.organization;
    await this.store.putLtiDeployment(registration.issuer, registration.clientId, organization === undefined ? { id: deploymentId } : { id: deploymentId, organization });
    registration.deployments.set(deploymentId, organization);
    this.logger.info({ event: "lti_deployment_recorded", iss: registration.issuer, clientId: registration.clientId, deploymentId, organization }, "LTI deployment recorded at its first launch");
  }

  /** One read at a time: concurrent callers share it. */
  private refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => { this.reading = undefined; });
    return this.reading;
  }

  private async read(): Promise<void> {
    const stored = await this.store.listLtiRegistrations();
    const own = new Set(this.fromOptions.all().map((r) => `${r.issuer}\u0000${r.clientId}`));
    const extra = stored.filter((r) => !own.has(`${r.issuer}\u0000${r.clientId}`)).map(fromRecord);
    this.combined = new Registrations([...this.fromOptions.all(), ...extra]);
    this.readAt = Date.now();
    this.frameAncestors.splice(0, this.frameAncestors.length, ...this.combined.origins());
  }
}
