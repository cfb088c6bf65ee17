/**
 * The programmatic pre-warming (`router.prepare`, `router.preparation`,
 * `router.sharedPreparation`) for one organization and for many.
 *
 * Without a request there is nobody to ask the resolver about, so the caller says whose
 * exam it is, in the resolver's own shape: `{ organization: { id, apiKey, baseUrl,
 * examHost } }`. That is what a scheduled job of a multi-school product has in hand (its
 * schools table, the same one its resolver reads), and it makes the call independent of
 * what this instance happens to hold: the organization is built, or found in the cache
 * (a new key rotates it there, as a resolver's answer would), and the plan runs on its
 * own client, budget, store scope and fleet keys. A bare id was not chosen: it would work
 * only while the organization is cached, and fail after its idle expiry, which the
 * caller cannot see. The progress readers take the id (or the same object): reading
 * builds nothing, and an organization this instance does not hold has no plan here.
 *
 * A single-organization router (`platform`) takes no `organization`: its one organization
 * is implied, as before.
 */
import type { PrepareProgress } from "../prepare/plan.js";
import { PrepareError, type PrepareInput } from "../prepare/preparation.js";
import type { Preparation } from "../prepare/preparation.js";
import type { OrganizationInfo } from "../shared/organization-info.js";
import { DEFAULT_ORGANIZATION } from "../../store/types.js";
import { InvalidOrganization, type Organization, type Organizations } from "./organizations.js";

/** The organization a progress reader names: its id, or the object `prepare` was given. */
export type OrganizationRef = string | OrganizationInfo;

export interface ProgrammaticPreparation {
  prepare(examId: string, input: PrepareInput): Promise<PrepareProgress>;
  preparation(examId: string, organization?: OrganizationRef): PrepareProgress | undefined;
  sharedPreparation(examId: string, organization?: OrganizationRef): Promise<PrepareProgress | undefined>;
}

export function programmaticPreparation<S extends { preparation: Preparation }>(organizations: Organizations<S>): ProgrammaticPreparation {
  /** The organization to prepare for; throws PrepareError (400) naming `organization`. */
  const target = (given: unknown): Organization<S> => {
    if (!organizations.resolves) {
      if (given !== undefined) throw refused("is only for a router with the organization resolver; this one acts for its platform's organization");
      return organizations.known(DEFAULT_ORGANIZATION)!;
    }
    if (given === undefined || given === null) {
      throw refused("is required with the organization resolver: give { id, apiKey, baseUrl, examHost }, as the resolver answers");
    }
    try {
      return organizations.adopt(given as OrganizationInfo);
    } catch (error) {
      if (error instanceof InvalidOrganization) throw refused(error.problems.join("; "));
      throw error;
    }
  };
  /** The organization a reader names, if this instance holds it (nothing is built to read). */
  const held = (ref: OrganizationRef | undefined): Organization<S> | undefined => {
    if (!organizations.resolves) return ref === undefined || idOf(ref) === DEFAULT_ORGANIZATION ? organizations.known(DEFAULT_ORGANIZATION) : undefined;
    return ref === undefined ? undefined : organizations.known(idOf(ref));
  };

  return {
    async prepare(examId, input) {
      const { organization, ...rest } = (input ?? {}) as PrepareInput;
      const org = target(organization);
      return org.scope.preparation.prepare(org.id, examId, rest);
    },
    preparation: (examId, ref) => held(ref)?.scope.preparation.progress(examId),
    sharedPreparation: async (examId, ref) => held(ref)?.scope.preparation.sharedProgress(examId),
  };
}

const idOf = (ref: OrganizationRef): string => (typeof ref === "string" ? ref : ref?.id);

function refused(message: string): PrepareError {
  return new PrepareError(400, "validation_error", `organization: ${message}`, [{ path: "organization", message }]);
}
