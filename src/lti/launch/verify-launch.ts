/**
 * The launch's `id_token`, checked with `jose` against everything of the 1EdTech Security
 * Framework §5.1.3 and LTI Core §5.3, for the registration the login's state names:
 * signature by the LMS's key set (RS256 only: never `none`, never HS*) under a `kid` the
 * header names (never "the set's only key" for a token without one), `iss`, `aud` (a
 * string; a one-entry array; several entries with `azp` equal to our client id; an `azp`
 * always equal to it), `exp`/`iat`/`nbf` with the
 * clock tolerance and `iat` no older than a state lives, the nonce sent at login,
 * a deployment known for the registration (and the login's `lti_deployment_id`),
 * `version` 1.3.0, a known `message_type`, `roles` present (empty is fine), the resource link, and a
 * `target_link_uri` that is this tool's own launch URL. Claims it does not know are
 * ignored. The first failure is the answer, each with its own check name (logged).
 */
import { isText } from "../../core/text.js";
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from "jose";
import { MESSAGE_TYPES, type MessageType } from "../shared/claims.js";
import type { LoginState } from "./login-state.js";
import type { Registration } from "../lms/registrations.js";
import type { RemoteKeySets } from "../lms/remote-keys.js";
import { readLaunchClaims, type LaunchClaims } from "./typed-launch.js";

/** A launch that passed every check: its claims read once (typed-launch.ts), and the registration it verified against. */
export interface VerifiedLaunch extends LaunchClaims {
  registration: Registration;
  deploymentId: string;
  messageType: MessageType;
  roles: unknown[];
  userId: string;
}

/** Which check failed, and what the LMS administrator should look at. */
export interface FailedCheck {
  check: string;
  status: 400 | 401 | 502;
  forAdministrator: string;
}

export interface VerifyInput {
  idToken: string;
  state: LoginState;
  registration: Registration;
  keySets: RemoteKeySets;
  clockToleranceSec: number;
  maxAgeSec: number;
  /** The URLs the signed `target_link_uri` may name: this tool's launch routes. */
  ownTargets: (uri: string) => boolean;
  now?: Date;
}

const fail = (check: string, forAdministrator: string, status: FailedCheck["status"] = 401): { failed: FailedCheck } => ({ failed: { check, status, forAdministrator } });

export async function verifyLaunch(input: VerifyInput): Promise<{ launch: VerifiedLaunch } | { failed: FailedCheck }> {
  const { registration: reg } = input;
  const headerFailure = headerCheck(input.idToken, reg);
  if (headerFailure) return { failed: headerFailure };
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(input.idToken, input.keySets.of(reg.jwksUrl), {
      algorithms: ["RS256"], issuer: reg.issuer, audience: reg.clientId, requiredClaims: ["iat", "exp", "nonce", "sub"],
      clockTolerance: input.clockToleranceSec, maxTokenAge: input.maxAgeSec + input.clockToleranceSec, currentDate: input.now,
    }));
  } catch (error) {
    return { failed: joseFailure(error, reg) };
  }
  // The JWT's own claims (RFC 7519, OpenID Connect) are the token's to check here; the LTI claims are read once.
  const read = readLaunchClaims(payload as Record<string, unknown>);
  // Security Framework §5.1.3: a one-entry array needs no azp; with several audiences, azp must name us.
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== reg.clientId) {
    return fail("azp", `The token names several audiences; its azp must be this tool's client id ${reg.clientId}.`);
  }
  if (payload.azp !== undefined && payload.azp !== reg.clientId) return fail("azp", `The token's azp is not this tool's client id ${reg.clientId}.`);
  if (payload.nonce !== input.state.nonce) return fail("nonce", "The token's nonce is not the one this tool sent at login (a replayed or mixed-up launch).");
  const { deploymentId, messageType, roles, userId } = read;
  if (deploymentId === undefined || deploymentId.length === 0) {
    return fail("deployment_id_missing", "The launch carries no deployment_id claim (LTI Core §5.3.3 requires it): check the LMS's LTI 1.3 configuration of the tool.", 400);
  }
  // Any shape: "3" (Moodle), "189:8865aa…" (Canvas), an upper-case GUID (Brightspace), a UUID (Blackboard).
  // A stored registration that accepts new deployments takes an unknown id of 1-255 characters (the launch records it).
  if (!reg.deployments.has(deploymentId) && !(reg.acceptNewDeployments && deploymentId.length <= 255)) {
    return fail("deployment_id", `Deployment ${JSON.stringify(deploymentId.slice(0, 255))} is not registered with this tool for client id ${reg.clientId}. Add it to the registration's deployments.`, 400);
  }
  if (input.state.deploymentId !== undefined && input.state.deploymentId !== deploymentId) {
    return fail("deployment_id_login_mismatch", "The token's deployment id differs from the lti_deployment_id (Canvas: deployment_id) the LMS sent at login.", 400);
  }
  if (read.version !== "1.3.0") return fail("version", "The launch is not LTI 1.3.0: configure the tool as an LTI 1.3 tool.", 400);
  if (!MESSAGE_TYPES.includes(messageType as MessageType)) return fail("message_type", `This tool accepts ${MESSAGE_TYPES.join(" and ")}, not ${JSON.stringify(messageType ?? null)}.`, 400);
  if (roles === undefined) return fail("roles", "The launch carries no roles claim (it may be empty, but must be there).", 400);
  if (!isText(userId, 255)) return fail("sub", "The launch's sub (user id) is missing or longer than 255 characters.", 400);
  if ((messageType === "LtiResourceLinkRequest" || messageType === "LtiSubmissionReviewRequest") && read.resourceLink?.id === undefined) return fail("resource_link", "The launch carries no resource_link id.", 400);
  const target = read.targetLinkUri;
  if (target === undefined || !input.ownTargets(target)) {
    return fail("target_link_uri", "The launch's target_link_uri is not this tool's launch URL: set the tool's target link URI to its /lti/launch URL.", 400);
  }
  return { launch: { ...read, registration: reg, deploymentId, messageType: messageType as MessageType, roles, userId } };
}

/**
 * The header's own checks before any key is looked up: RS256, and a `kid` (jose would
 * take a set's only key for a token without one; the certification's first bad payload).
 */
export function headerCheck(idToken: string, reg: Registration): FailedCheck | undefined {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(idToken);
  } catch {
    return { check: "token", status: 400, forAdministrator: "The id_token is not a well-formed signed JWT." };
  }
  if (header.alg !== "RS256") return { check: "alg", status: 401, forAdministrator: "The token is not signed with RS256; LTI 1.3 requires RS256." };
  if (typeof header.kid !== "string" || header.kid.length === 0) {
    return { check: "kid", status: 401, forAdministrator: `The token's header names no kid: the LMS must name the key of its key set (${reg.jwksUrl}) that signed it.` };
  }
  return undefined;
}

export function joseFailure(error: unknown, reg: Registration): FailedCheck {
  const at = (check: string, forAdministrator: string, status: FailedCheck["status"] = 401): FailedCheck => ({ check, status, forAdministrator });
  if (error instanceof errors.JWTExpired) {
    return error.claim === "iat"
      ? at("iat_too_old", "The token was issued longer ago than a login lives (stateTtlMs): check the LMS server's clock.")
      : at("exp", "The launch token had expired when it arrived: check the LMS server's clock.");
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = error.claim;
    if (error.reason === "missing") return at(`${claim}_missing`, `The token has no ${claim} claim, which an LTI 1.3 launch must carry.`);
    if (claim === "iss") return at("iss", `The token's issuer is not ${reg.issuer}, the registered issuer.`);
    if (claim === "aud") return at("aud", `The token's audience does not include this tool's client id ${reg.clientId}.`);
    // maxTokenAge makes jose refuse an iat beyond the clock tolerance in the future too.
    if (claim === "iat") return at("iat", "The token was issued in the future: check the LMS server's clock.");
    if (claim === "nbf") return at("nbf", "The token is not valid yet: check the LMS server's clock.");
    return at(claim, `The token lacks or has a wrong ${claim} claim.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return at("alg", "The token is not signed with RS256; LTI 1.3 requires RS256.");
  if (error instanceof errors.JWKSNoMatchingKey) return at("kid", `No key in the LMS's key set (${reg.jwksUrl}) matches the token's kid.`);
  if (error instanceof errors.JWSSignatureVerificationFailed) return at("signature", `The token's signature does not verify with the LMS's key set at ${reg.jwksUrl}.`);
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || (error as Error)?.name === "TypeError" || error instanceof errors.JOSEError && (error as errors.JOSEError).code === "ERR_JOSE_GENERIC") {
    return at("jwks_unreachable", `The LMS's key set at ${reg.jwksUrl} could not be fetched or read.`, 502);
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return at("token", "The id_token is not a well-formed signed JWT.", 400);
  return at("token", `The token could not be verified (${(error as Error)?.name ?? "error"}).`, 400);
}
