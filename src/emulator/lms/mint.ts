/**
 * The LMS emulator's launch tokens: a sound LTI 1.3 `LtiResourceLinkRequest` for a user
 * and a resource link (or an `LtiDeepLinkingRequest` with its settings), or, with a fault
 * switched on, the bad token that fault names.
 */
import { createHash } from "node:crypto";
import { SignJWT, UnsecuredJWT } from "jose";
// Node's CryptoKey in these public declarations, not jose's (ESM only: unresolvable from
// CommonJS); our own JWK type (@types/node 26 no longer exports JsonWebKey).
import type { webcrypto } from "node:crypto";
import type { LtiJsonWebKey } from "../../lti/shared/json-web-key.js";

type CryptoKey = webcrypto.CryptoKey;
type JWK = LtiJsonWebKey;
import type { LmsFault } from "./faults.js";
import type { LmsShape } from "./presets.js";

export interface LmsKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface LmsUser {
  id: string;
  name: string;
  givenName: string;
  familyName: string;
  email: string;
  role: "Instructor" | "Learner";
  sourcedId: string;
}

export interface ResourceLink {
  id: string;
  title: string;
  /** Custom parameters, e.g. `{ exam_id }` or `{ roleplay_id }`. */
  custom: Record<string, string>;
  /** `launch_presentation.document_target`. Default `iframe`. */
  documentTarget?: "iframe" | "window";
  /** Submission Review of this link (the gradebook's "view submission"): the learner reviewed, as `for_user`. */
  forUser?: { userId: string; user: LmsUser };
  /** A line item the LMS makes for the link (a deep-linked item's `lineItem`): its launches carry it as the AGS claim's `lineitem`. */
  lineItem?: { label: string; scoreMaximum: number; resourceId?: string; tag?: string };
}

export interface MintInput {
  issuer: string;
  clientId: string;
  deploymentId: string;
  user: LmsUser;
  /** The resource link launched; for a deep-linking request, the `deep_linking_settings` claim instead. */
  link: ResourceLink | { deepLinking: Record<string, unknown> };
  nonce: string;
  targetLinkUri: string;
  key: LmsKey;
  /**
   * A key outside the key set (bad signatures, unknown kids), made on first use: an RSA key
   * costs about 0.1–0.3 s of CPU, and most LMSs never mint a token with one.
   */
  stranger: () => Promise<LmsKey>;
  fault: LmsFault | undefined;
  extraClaims: Record<string, unknown>;
  /** The LMS whose shape the token takes (presets.ts); undefined: the emulator's plain shape. */
  shape?: LmsShape;
  /** The LMS's own URL (return URLs and service endpoints in shaped claims). */
  base?: string;
  /** The AGS endpoint claim (gradebook.ts): the course's `lineitems`, the link's `lineitem` if it has one; undefined: no claim. */
  agsEndpoint?: Record<string, unknown>;
  /** The course's NRPS `context_memberships_url` (the namesroleservice claim); undefined: no claim. */
  membershipsUrl?: string;
  /** The Platform Notification Service claim (notices.ts); undefined: no claim. */
  notices?: Record<string, unknown>;
}

const L = "https://purl.imsglobal.org/spec/lti/claim/";
const ROLE = { Instructor: "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor", Learner: "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner" };

export async function mintLaunch(m: MintInput): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const f = m.fault;
  const link = "deepLinking" in m.link ? undefined : m.link;
  const placing = link ? {
    [`${L}resource_link`]: { id: link.id, title: link.title },
    [`${L}custom`]: link.custom,
  } : { "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": (m.link as { deepLinking: unknown }).deepLinking };
  const claims: Record<string, unknown> = {
    nonce: f === "wrong_nonce" ? "not-the-nonce" : m.nonce,
    sub: m.user.id,
    name: m.user.name, given_name: m.user.givenName, family_name: m.user.familyName,
    ...(f === "no_email" ? {} : { email: m.user.email }),
    [`${L}message_type`]: f === "bad_message_type" ? "LtiUnknownMessageRequest" : link?.forUser ? "LtiSubmissionReviewRequest" : link ? "LtiResourceLinkRequest" : "LtiDeepLinkingRequest",
    ...(link?.forUser ? { [`${L}for_user`]: forUserClaim(link.forUser) } : {}),
    [`${L}version`]: f === "wrong_version" ? "1.1.0" : "1.3.0",
    [`${L}deployment_id`]: f === "unknown_deployment" ? "deployment-unknown" : m.deploymentId,
    [`${L}target_link_uri`]: f === "target_mismatch" ? "https://evil.example/steal" : m.targetLinkUri,
    ...placing,
    ...(f === "no_roles" ? {} : { [`${L}roles`]: [ROLE[m.user.role]] }),
    [`${L}context`]: { id: "course-1", label: "ORAL-101", title: "Oral exams 101", type: ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"] },
    [`${L}lis`]: { person_sourcedid: m.user.sourcedId },
    [`${L}launch_presentation`]: { document_target: m.shape?.documentTarget ?? link?.documentTarget ?? "iframe", locale: "en" },
    [`${L}tool_platform`]: { guid: "lms-emulator", name: "LMS emulator", product_family_code: "emulator" },
    ...(m.agsEndpoint ? { "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": m.agsEndpoint } : {}),
    ...(m.membershipsUrl ? { "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": { context_memberships_url: m.membershipsUrl, service_versions: ["2.0"] } } : {}),
    ...(m.notices ? { [`${L}platformnotificationservice`]: m.notices } : {}),
  };
  const shaped = m.shape ? m.shape.claims(claims, { issuer: m.issuer, clientId: m.clientId, deploymentId: m.deploymentId, user: m.user, link, base: m.base ?? m.issuer }) : claims;
  const audience = m.shape?.audience(m.clientId);
  if (Array.isArray(audience) && f !== "wrong_aud") shaped.aud = audience;
  if (f === "azp_mismatch") shaped.azp = "another-client";
  if (f === "aud_array_no_azp") { shaped.aud = [m.clientId, "another-client"]; delete shaped.azp; }
  if (f === "no_roles") delete shaped[`${L}roles`];
  return sign(m, shaped, now);
}

/** Submission Review's `for_user` (Submission Review 1.0 §3.2): the learner as this LMS names them. */
function forUserClaim({ userId, user }: { userId: string; user: LmsUser }): Record<string, unknown> {
  return { user_id: userId, person_sourcedid: user.sourcedId, given_name: user.givenName, family_name: user.familyName, name: user.name, email: user.email, roles: [ROLE[user.role]] };
}

async function sign(m: MintInput, claims: Record<string, unknown>, now: number): Promise<string> {
  const f = m.fault;
  for (const [k, v] of Object.entries(m.extraClaims)) {
    if (v === undefined) delete claims[k];
    else claims[k] = v;
  }
  // An iat or exp given with setClaims is signed as given (the certification's 1970 timestamps).
  const iat = typeof claims.iat === "number" ? claims.iat : f === "future_iat" ? now + 3600 : f === "expired" ? now - 7200 : now;
  const exp = typeof claims.exp === "number" ? claims.exp : f === "expired" ? now - 3600 : iat + (m.shape?.lifetimeSec ?? 300);
  const iss = f === "wrong_iss" ? "https://other-lms.example" : m.issuer;
  const aud = f === "wrong_aud" ? "another-client" : m.clientId;

  if (f === "alg_none") {
    return new UnsecuredJWT(claims).setIssuer(iss).setAudience(aud).setIssuedAt(iat).setExpirationTime(exp).encode();
  }
  if (f === "not_lti") return new SignJWT({ name: "badltilaunch" }).setProtectedHeader({ alg: "RS256", kid: m.key.kid, typ: "JWT" }).sign(m.key.privateKey);
  const jwt = new SignJWT(claims).setIssuer(iss).setIssuedAt(iat).setExpirationTime(exp);
  if (!Array.isArray(claims.aud)) jwt.setAudience(aud);
  if (f === "hs256") {
    // The classic confusion: an HMAC keyed with the public key, hoping the verifier takes the header's alg.
    const secret = new TextEncoder().encode(createHash("sha256").update(JSON.stringify(m.key.publicJwk)).digest("hex"));
    return jwt.setProtectedHeader({ alg: "HS256", kid: m.key.kid, typ: "JWT" }).sign(secret);
  }
  // bad_signature: signed by a key outside the set under the set's kid; unknown_kid: under the outsider's own kid.
  const signer = f === "bad_signature" || f === "unknown_kid" ? await m.stranger() : m.key;
  const kid = f === "unknown_kid" ? signer.kid : m.key.kid;
  return jwt.setProtectedHeader(f === "no_kid" ? { alg: "RS256", typ: "JWT" } : { alg: "RS256", kid, typ: "JWT" }).sign(signer.privateKey);
}
