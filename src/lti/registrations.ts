/**
 * The LMS registrations, keyed by (issuer, clientId). Canvas Cloud uses one issuer for
 * every school, so an issuer alone selects a registration only when it has exactly one;
 * with several, the login must name the client id (`client_id`) and the launch's
 * `aud`/`azp` must. Each registration lists its deployments, each possibly naming an
 * organization.
 */
import type { ProblemList } from "../core/configuration-error.js";
import type { LtiRegistration } from "./options.js";
import { isHttpsOrLoopback } from "../core/secure-url.js";

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

/** `lti.registrations`: optional (the store may hold every registration), each entry checked. */
export function readRegistrations(value: unknown, problems: ProblemList): Registrations | undefined {
  const example = 'registrations: [{ issuer: "https://canvas.instructure.com", clientId: "10000000000123", authorizationUrl, jwksUrl, deployments: ["1:8865aa…"] }]';
  if (value === undefined) return new Registrations([]);
  if (!Array.isArray(value)) {
    problems.add("lti.registrations", "must be an array.", `Pass e.g. ${example}, or leave it out to use only the store's registrations (Dynamic Registration).`);
    return undefined;
  }
  const before = problems.size;
  const read: Registration[] = [];
  const seen = new Set<string>();
  value.forEach((entry: Partial<LtiRegistration> | undefined, i) => {
    const where = `lti.registrations[${i}]`;
    const text = (name: "issuer" | "clientId") => {
      const v = entry?.[name];
      if (typeof v === "string" && v.length > 0 && v.length <= 255) return v;
      problems.add(`${where}.${name}`, "must be a non-empty string of at most 255 characters.", "Copy it from the LMS's registration of this tool.");
      return undefined;
    };
    const url = (name: "authorizationUrl" | "jwksUrl" | "tokenUrl", required: boolean) => {
      const v = entry?.[name];
      if (v === undefined && !required) return undefined;
      if (typeof v === "string" && URL.canParse(v)) {
        const u = new URL(v);
        if (isHttpsOrLoopback(u)) return v;
      }
      problems.add(`${where}.${name}`, "must be an https URL (http only for localhost).", "Copy it from the LMS's documentation (see docs/lti.md for each LMS).");
      return undefined;
    };
    const issuer = text("issuer");
    const clientId = text("clientId");
    const authorizationUrl = url("authorizationUrl", true);
    const jwksUrl = url("jwksUrl", true);
    const tokenUrl = url("tokenUrl", false);
    const deployments = readDeployments(entry?.deployments, `${where}.deployments`, problems);
    if (issuer && clientId) {
      const key = `${issuer}\u0000${clientId}`;
      if (seen.has(key)) problems.add(where, `repeats issuer ${issuer} with client id ${clientId}.`, "List each (issuer, clientId) once, with all its deployments.");
      seen.add(key);
    }
    if (issuer && clientId && authorizationUrl && jwksUrl && deployments) read.push({ issuer, clientId, authorizationUrl, jwksUrl, tokenUrl, deployments, active: true, acceptNewDeployments: false, organization: undefined, source: "options" });
  });
  return problems.size === before ? new Registrations(read) : undefined;
}

function readDeployments(value: unknown, where: string, problems: ProblemList): Map<string, string | undefined> | undefined {
  const fix = 'List the deployment ids the LMS shows for this tool, e.g. ["1:8865aa…"] or [{ id: "1:8865aa…", organization: "north" }].';
  if (!Array.isArray(value) || value.length === 0) {
    problems.add(where, "must be a non-empty array: launches from a deployment not listed are refused.", fix);
    return undefined;
  }
  const map = new Map<string, string | undefined>();
  for (const [i, d] of value.entries()) {
    const id = typeof d === "string" ? d : (d as { id?: unknown } | null)?.id;
    const organization = typeof d === "object" && d !== null ? (d as { organization?: unknown }).organization : undefined;
    if (typeof id !== "string" || id.length === 0 || id.length > 255) {
      problems.add(`${where}[${i}]`, "must be a deployment id (1-255 characters) or { id, organization }.", fix);
      return undefined;
    }
    if (organization !== undefined && (typeof organization !== "string" || organization.length === 0)) {
      problems.add(`${where}[${i}].organization`, "must be a non-empty string.", "Name the organization this deployment launches for, or leave it out.");
      return undefined;
    }
    map.set(id, organization as string | undefined);
  }
  return map;
}
