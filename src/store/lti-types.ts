/**
 * LTI registrations kept in the store: what LTI Dynamic Registration writes, and what an
 * administrator activates. Global, not per organization: a registration is keyed by the
 * LMS's (issuer, client id), like the `lti.registrations` option; each deployment may
 * name the organization its launches act for.
 */

/** One deployment of a stored registration. */
export interface LtiDeploymentRecord {
  /** The LMS's `deployment_id` (1-255 characters). */
  id: string;
  /** The organization its launches act for; undefined: the router's default. */
  organization?: string;
}

/** What `putLtiRegistration` writes: a registration without its deployments. */
export interface LtiRegistrationInput {
  issuer: string;
  clientId: string;
  authorizationUrl: string;
  jwksUrl: string;
  tokenUrl?: string;
  /**
   * Whether launches are accepted. Dynamic Registration stores a registration inactive
   * (unless `autoActivate`): the tool's administrator activates it.
   */
  active: boolean;
  /**
   * Whether a deployment id not yet recorded is accepted at launch (and then recorded,
   * naming `organization`). False: only recorded deployments launch.
   */
  acceptNewDeployments: boolean;
  /** The organization a deployment recorded at its first launch names; undefined: none. */
  organization?: string;
  /** Anything worth keeping about the LMS (its product family, the registration's answer, who made it). JSON. */
  data: Record<string, unknown>;
  /** ISO 8601. */
  createdAt: string;
}

export interface LtiRegistrationRecord extends LtiRegistrationInput {
  /** Oldest first. */
  deployments: LtiDeploymentRecord[];
}

import { isText } from "../core/text.js";
import type { OralStoreLtiCourses } from "./lti-course-types.js";
import type { OralStoreLtiGradebook } from "./lti-gradebook-types.js";

export interface OralStoreLti extends OralStoreLtiCourses, OralStoreLtiGradebook {
  /**
   * Inserts or replaces the registration of (issuer, clientId): latest wins, its
   * deployments are kept.
   */
  putLtiRegistration(record: LtiRegistrationInput): Promise<void>;
  /** The registration with its deployments, or undefined. */
  getLtiRegistration(issuer: string, clientId: string): Promise<LtiRegistrationRecord | undefined>;
  /** Every registration, oldest first, with its deployments. */
  listLtiRegistrations(): Promise<LtiRegistrationRecord[]>;
  /** Activates (or deactivates) a registration; false when there is none. */
  setLtiRegistrationActive(issuer: string, clientId: string, active: boolean): Promise<boolean>;
  /** Inserts or replaces a deployment of the registration; false (nothing written) when there is no such registration. */
  putLtiDeployment(issuer: string, clientId: string, deployment: LtiDeploymentRecord): Promise<boolean>;
  /** Removes the registration and its deployments; false when there was none. */
  deleteLtiRegistration(issuer: string, clientId: string): Promise<boolean>;
}

/**
 * LTI's own persistence (`lti.store`): the LTI methods, opened and closed like a store. The
 * three bundled stores are one; so is any custom store that implements `OralStoreLti`.
 */
export interface LtiStore extends OralStoreLti {
  /** Creates or migrates the LTI tables. Idempotent. */
  init(): Promise<void>;
  /** Releases connections / file handles. */
  close(): Promise<void>;
}

/**
 * Every method of `OralStoreLti`, listed once: with LTI on, the router checks its LTI store
 * against this list (with LTI off it asks for none of them), and the compiler checks the list
 * against the interface.
 */
export const LTI_STORE_METHODS = [
  "putLtiRegistration", "getLtiRegistration", "listLtiRegistrations", "setLtiRegistrationActive", "putLtiDeployment", "deleteLtiRegistration",
  "putLtiCourseLink", "getLtiCourseLink", "listLtiCourseLinks", "putLtiExamCopy", "getLtiExamCopy", "putLtiCourseServices", "getLtiCourseServices",
  "putLtiCourseCopyNotice", "getLtiCourseCopyNotice",
  "putLtiLineItem", "getLtiLineItem", "addLtiScores", "claimLtiScores", "deferLtiScores", "settleLtiScore", "purgeLtiScores", "listLtiScores",
] as const satisfies readonly (keyof OralStoreLti)[];
type UnlistedLti = Exclude<keyof OralStoreLti, (typeof LTI_STORE_METHODS)[number]>;
const everyLtiMethodListed: [UnlistedLti] extends [never] ? true : UnlistedLti = true;
void everyLtiMethodListed;

const URL_TEXT = (v: unknown) => isText(v, 2048) && URL.canParse(v);

/** A TypeError, like `checkRecord`: a bad registration is a bug in the caller. */
export function checkLtiKey(issuer: unknown, clientId: unknown): void {
  if (!isText(issuer, 255) || !isText(clientId, 255)) throw new TypeError("invalid LTI registration key: issuer and clientId must be strings of 1-255 characters");
}

export function checkLtiRegistration(r: LtiRegistrationInput): void {
  if (typeof r !== "object" || r === null) throw new TypeError("LTI registration must be an object");
  const problems: string[] = [];
  if (!isText(r.issuer, 255) || !isText(r.clientId, 255)) problems.push("issuer and clientId must be strings of 1-255 characters");
  if (!URL_TEXT(r.authorizationUrl)) problems.push("authorizationUrl must be a URL");
  if (!URL_TEXT(r.jwksUrl)) problems.push("jwksUrl must be a URL");
  if (r.tokenUrl !== undefined && !URL_TEXT(r.tokenUrl)) problems.push("tokenUrl must be a URL");
  if (typeof r.active !== "boolean") problems.push("active must be a boolean");
  if (typeof r.acceptNewDeployments !== "boolean") problems.push("acceptNewDeployments must be a boolean");
  if (r.organization !== undefined && !isText(r.organization, 64)) problems.push("organization must be a string of 1-64 characters");
  if (typeof r.data !== "object" || r.data === null || Array.isArray(r.data)) problems.push("data must be a plain object");
  if (typeof r.createdAt !== "string" || Number.isNaN(Date.parse(r.createdAt))) problems.push("createdAt must be an ISO 8601 timestamp");
  if (problems.length > 0) throw new TypeError(`invalid LTI registration: ${problems.join("; ")}`);
}

export function checkLtiDeployment(d: LtiDeploymentRecord): void {
  if (typeof d !== "object" || d === null || !isText(d.id, 255) || (d.organization !== undefined && !isText(d.organization, 64))) {
    throw new TypeError("invalid LTI deployment: id must be a string of 1-255 characters, organization (if any) of 1-64");
  }
}

/** Own fields only, `data` as JSON gives it back: what every backend stores. */
export function ltiRegistrationFields(r: LtiRegistrationInput): LtiRegistrationInput {
  const out: LtiRegistrationInput = {
    issuer: r.issuer, clientId: r.clientId, authorizationUrl: r.authorizationUrl, jwksUrl: r.jwksUrl,
    active: r.active, acceptNewDeployments: r.acceptNewDeployments, data: JSON.parse(JSON.stringify(r.data)) as Record<string, unknown>, createdAt: r.createdAt,
  };
  if (r.tokenUrl !== undefined) out.tokenUrl = r.tokenUrl;
  if (r.organization !== undefined) out.organization = r.organization;
  return out;
}

/** A SQL row (both dialects) back to a record. */
export interface LtiRegistrationRow {
  issuer: string;
  client_id: string;
  authorization_url: string;
  jwks_url: string;
  token_url: string | null;
  active: boolean | number;
  accept_new_deployments: boolean | number;
  organization: string | null;
  data: string | Record<string, unknown>;
  created_at: string;
}

export interface LtiDeploymentRow {
  issuer: string;
  client_id: string;
  deployment_id: string;
  organization: string | null;
}

export function toLtiRegistrations(rows: LtiRegistrationRow[], deployments: LtiDeploymentRow[]): LtiRegistrationRecord[] {
  const key = (issuer: string, clientId: string) => `${issuer}\u0000${clientId}`;
  const byKey = new Map<string, LtiDeploymentRecord[]>();
  for (const d of deployments) {
    const list = byKey.get(key(d.issuer, d.client_id)) ?? byKey.set(key(d.issuer, d.client_id), []).get(key(d.issuer, d.client_id))!;
    list.push(d.organization === null ? { id: d.deployment_id } : { id: d.deployment_id, organization: d.organization });
  }
  return rows.map((r) => {
    const record: LtiRegistrationRecord = {
      issuer: r.issuer, clientId: r.client_id, authorizationUrl: r.authorization_url, jwksUrl: r.jwks_url,
      active: Boolean(r.active), acceptNewDeployments: Boolean(r.accept_new_deployments),
      data: typeof r.data === "string" ? JSON.parse(r.data) as Record<string, unknown> : r.data,
      createdAt: r.created_at, deployments: byKey.get(key(r.issuer, r.client_id)) ?? [],
    };
    if (r.token_url !== null) record.tokenUrl = r.token_url;
    if (r.organization !== null) record.organization = r.organization;
    return record;
  });
}

/** The columns a SQL write binds (named for SQLite; PostgreSQL takes them in this order). */
export function ltiRegistrationColumns(r: LtiRegistrationInput) {
  return {
    issuer: r.issuer, clientId: r.clientId, authorizationUrl: r.authorizationUrl, jwksUrl: r.jwksUrl, tokenUrl: r.tokenUrl ?? null,
    active: r.active ? 1 : 0, acceptNew: r.acceptNewDeployments ? 1 : 0, organization: r.organization ?? null,
    data: JSON.stringify(r.data), createdAt: r.createdAt, createdMs: Date.parse(r.createdAt),
  };
}
