/**
 * The LMS registrations, keyed by (issuer, clientId). Canvas Cloud uses one issuer for
 * every school, so an issuer alone selects a registration only when it has exactly one;
 * with several, the login must name the client id (`client_id`) and the launch's
 * `aud`/`azp` must. Each registration lists its deployments, each possibly naming an
 * organization.
 */
import { isText } from "../../core/text.js";
import { hasControlCharacters } from "../../core/control-characters.js";
import { z } from "zod";
import { optionMeta, withDefault } from "../../core/option-schema.js";
import type { LtiRegistration } from "../options/options.js";
import { eachOnce, httpsUrl } from "../shared/shared-options.js";

export interface Registration {
  issuer: string;
  clientId: string;
  authorizationUrl: string;
  tokenUrl: string | undefined;
  jwksUrl: string;
  /** deployment id → the organization it names (undefined: the router's default). */
  deployments: Map<string, string | undefined>;
  /** False: launches are refused until the tool's administrator activates it (stored registrations only). */
  active: boolean;
  /** True: a deployment id not yet known is accepted and recorded at its first launch (stored registrations only). */
  acceptNewDeployments: boolean;
  /** The organization a deployment recorded at its first launch names. */
  organization: string | undefined;
  /** Where it came from: `lti.registrations`, or the store. */
  source: "options" | "store";
}

export type Lookup =
  | { found: Registration }
  | { problem: "unknown_issuer" | "unknown_client" | "ambiguous_issuer" };

export class Registrations {
  private readonly byIssuer = new Map<string, Registration[]>();

  constructor(private readonly list: readonly Registration[]) {
    for (const r of list) this.byIssuer.set(r.issuer, [...(this.byIssuer.get(r.issuer) ?? []), r]);
  }

  all(): readonly Registration[] {
    return this.list;
  }

  /** The registration of (issuer, clientId); without a client id, the issuer's only one. */
  find(issuer: string, clientId: string | undefined): Lookup {
    const candidates = this.byIssuer.get(issuer);
    if (!candidates) return { problem: "unknown_issuer" };
    if (clientId === undefined) return candidates.length === 1 ? { found: candidates[0]! } : { problem: "ambiguous_issuer" };
    const found = candidates.find((r) => r.clientId === clientId);
    return found ? { found } : { problem: "unknown_client" };
  }

  /** Every LMS origin an active registration names: the only pages allowed to frame the tool. */
  origins(): string[] {
    return [...new Set(this.list.filter((r) => r.active).flatMap(originsOf))];
  }
}

/** The LMS origins of one registration (its issuer's and its authorization URL's). */
export function originsOf(r: Pick<Registration, "issuer" | "authorizationUrl">): string[] {
  return [r.issuer, r.authorizationUrl].filter((url) => URL.canParse(url)).map((url) => new URL(url).origin);
}

const DEPLOYMENT = "must be a deployment id (1-255 characters, no control characters) or { id, organization }.";
/** Aborting, so that a wrong id fails both forms below and the union reports it at the entry. */
const deploymentIdSchema = z.custom<string>((id) => isText(id, 255) && !hasControlCharacters(id), { error: DEPLOYMENT, abort: true });
/**
 * A deployment: its id, or `{ id, organization }`. Every mistake is the entry's, but for an
 * organization wrong beside a right id: the one form that fails without aborting, so the
 * union reports its issue where it is (`…deployments[0].organization`), with its own fix.
 */
const deploymentSchema = z.union([deploymentIdSchema, z.object({ id: deploymentIdSchema, organization: z.custom<string>((o) => isText(o),
  { error: "must be a non-empty string.", abort: false, params: { fix: "Name the organization this deployment launches for, or leave it out." } }).optional() })], { error: DEPLOYMENT });
const LMS_TEXT = "must be a non-empty string of at most 255 characters, with no control characters.";
const DEPLOYMENTS = "must be a non-empty array: launches from a deployment not listed are refused.";
const lmsTextSchema = z.string({ error: LMS_TEXT }).refine((v) => isText(v, 255) && !hasControlCharacters(v), { error: LMS_TEXT })
  .register(optionMeta, { fix: "Copy it from the LMS's registration of this tool." });
const lmsUrlSchema = httpsUrl("must be an https URL (http only for localhost).").register(optionMeta, { fix: "Copy it from the LMS's documentation (see docs/lti.md for each LMS)." });

/** `lti.registrations`: optional (the store may hold every registration), each entry checked. */
export const registrationsSchema = withDefault(z.array(z.object({
  issuer: lmsTextSchema,
  clientId: lmsTextSchema,
  authorizationUrl: lmsUrlSchema,
  jwksUrl: lmsUrlSchema,
  tokenUrl: lmsUrlSchema.optional(),
  deployments: z.array(deploymentSchema, { error: DEPLOYMENTS }).min(1, { error: DEPLOYMENTS }).register(optionMeta,
    { fix: 'List the deployment ids the LMS shows for this tool, e.g. ["1:8865aa…"] or [{ id: "1:8865aa…", organization: "north" }].' }),
}, { error: "must be an object { issuer, clientId, authorizationUrl, jwksUrl, deployments }." }), { error: "must be an array." })
  .check(eachOnce<LtiRegistration>((r) => (r.issuer && r.clientId ? `${r.issuer}\u0000${r.clientId}` : undefined), [],
    (r) => `repeats issuer ${r.issuer} with client id ${r.clientId}.`, "List each (issuer, clientId) once, with all its deployments.")), [], {
  fix: 'Pass e.g. registrations: [{ issuer: "https://canvas.instructure.com", clientId: "10000000000123", authorizationUrl, jwksUrl, deployments: ["1:8865aa…"] }], '
    + "or leave it out to use only the store's registrations (Dynamic Registration).",
});
