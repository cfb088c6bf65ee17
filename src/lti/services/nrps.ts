/**
 * The course's Names and Role Provisioning Service (NRPS 2.0) as one object, as pylti1.3's
 * `NamesRolesProvisioningService` is: built from the launch's `context_memberships_url`,
 * it checks its one scope by name and reads the members page by page through the one
 * bounded paging helper (paging.ts). What a member is to the tool (a learner, the fields
 * kept) is roster.ts's.
 */
import type { Registration } from "../lms/registrations.js";
import { LTI_SCOPES, type ServiceAccess } from "../lms/service-access.js";
import { pagesOf, type PageLimits } from "./paging.js";

export const MEMBERSHIP_MEDIA_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json";

/** The NRPS scope, by its short name. */
export const NRPS_SCOPES = { "contextmembership.readonly": LTI_SCOPES.memberships } as const;

/** The query of a members read (NRPS §2.4): a role, a page size, a resource link's members. */
export interface MembersQuery {
  role?: string;
  limit?: number;
  rlid?: string;
}

export class NamesRolesProvisioningService {
  constructor(private readonly access: ServiceAccess, private readonly registration: Registration, readonly membershipsUrl: string) {}

  /** The scope a members read asks the token for. */
  readonly scopes: readonly string[] = [NRPS_SCOPES["contextmembership.readonly"]];

  /**
   * The members pages (each page's `members` as listed, unchecked), bounded by `limits`;
   * the caller may stop early. Throws ServiceAccessError (paging.ts).
   */
  async *memberPages(query: MembersQuery, limits: Omit<PageLimits, "what">): AsyncGenerator<{ members: unknown; page: number; status: number }> {
    const first = new URL(this.membershipsUrl);
    if (query.role) first.searchParams.set("role", query.role);
    if (query.limit !== undefined) first.searchParams.set("limit", String(query.limit));
    if (query.rlid) first.searchParams.set("rlid", query.rlid);
    for await (const page of pagesOf(this.access, this.registration, this.scopes, first.href, MEMBERSHIP_MEDIA_TYPE, { what: "roster", ...limits })) {
      yield { members: (page.body as { members?: unknown } | undefined)?.members, page: page.page, status: page.status };
    }
  }
}
