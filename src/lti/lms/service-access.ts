/**
 * Access to an LMS's LTI Advantage services (NRPS, AGS): OAuth 2 client credentials with
 * a JWT client assertion signed by the tool's key (1EdTech Security Framework §4.1.1, LTI
 * Core §6.2). There is no refresh token: a token is cached per (registration, sorted
 * scopes) until shortly before it expires, then a new one is asked for.
 *
 * One request in flight per cache key: callers arriving while one is out share its answer
 * (an exam-day burst of score posts must not become a burst of token requests, which some
 * LMSs rate-limit per developer key). In process here; with `shared` (the fleet's, see
 * service-token-share.ts) the token is shared fleet-wide and one instance asks at a time.
 *
 * Refusals (400/401 from the token endpoint) are logged with what to fix on the LMS side
 * (the registration's fault); a 5xx is the LMS's own failure, retried later, never blamed
 * on the tokenUrl. No assertion, token or key is ever logged or put in an error message.
 *
 * The bearer token goes only to a URL that passes `isServiceUrl` (lms-url.ts): https,
 * plain-http loopback only with `allowLoopbackHttp`; any other is refused before a byte is
 * sent. Every request carries the package's `User-Agent` (Canvas refuses API calls without
 * a descriptive one).
 */
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import type { Logger } from "../../core/logger.js";
import { parseRetryAfter } from "../../platform/retry.js";
import { userAgentOf } from "../../core/package-info.js";
import { isServiceUrl } from "../shared/lms-url.js";
import type { Registration } from "./registrations.js";
import { bodyOf, exchange } from "./service-http.js";
import type { ToolKeys } from "./tool-keys.js";

export const LTI_SCOPES = {
  lineItem: "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
  lineItemReadonly: "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
  resultReadonly: "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
  score: "https://purl.imsglobal.org/spec/lti-ags/scope/score",
  memberships: "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
  /** LTI Platform Notification Service: registering the tool's notice handlers. */
  noticeHandlers: "https://purl.imsglobal.org/spec/lti/scope/noticehandlers",
} as const;

export interface ServiceRequest {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  accept: string;
  contentType?: string;
  body?: unknown;
  /** This call's time limit, ms (a score post's is shorter than a roster page's). Default the access's `timeoutMs`. */
  timeoutMs?: number;
}
export interface ServiceAnswer { status: number; headers: Record<string, string>; body: unknown; /** The answer's length as read (UTF-16 code units). */ chars: number }

/** `unsafe_url`: a service URL the token must not go to (plain http, user info); `no_scope`: the LMS did not grant the scope the call needs. Nothing was sent for either. */
export type ServiceAccessErrorKind = "no_token_url" | "token_refused" | "unreachable" | "refused" | "bad_answer" | "unsafe_url" | "no_scope";

/** Why an LMS service call failed; `message` says what to fix, never a secret or token. */
export class ServiceAccessError extends Error {
  override name = "ServiceAccessError";
  constructor(readonly kind: ServiceAccessErrorKind, message: string, readonly status?: number,
    /** A 429's or 503's `Retry-After`, ms. */
    readonly retryAfterMs?: number) {
    super(message);
  }
}

export interface ServiceAccess {
  /** A bearer token for (registration, scopes), cached until 60 s before expiry; one request in flight per cache key (fleet-wide in fleet mode). */
  token(registration: Registration, scopes: readonly string[]): Promise<string>;
  /** Calls an LMS service URL with the token; on a 401 drops the cached token and retries once; 2xx → answer; else throws ServiceAccessError. */
  call(registration: Registration, scopes: readonly string[], request: ServiceRequest): Promise<ServiceAnswer>;
}

/** A token as cached: usable until `until` (ms since epoch). */
export interface CachedToken { token: string; until: number }

/**
 * Where tokens are shared between instances (service-token-share.ts): `get` a live one,
 * `lock` the right to ask the LMS (true: ours; false: another instance is asking),
 * `put` the answer (and release the lock).
 */
export interface TokenShare {
  get(key: string): Promise<CachedToken | undefined>;
  lock(key: string): Promise<boolean>;
  put(key: string, token: CachedToken | undefined): Promise<void>;
  /** How often a follower looks for the leader's token, ms. */
  readonly pollMs: number;
  /** How long a follower waits for it before asking itself, ms. */
  readonly waitMs: number;
}

export interface ServiceAccessDeps {
  keys: ToolKeys;
  logger: Logger;
  /** Fleet-wide token sharing; undefined: in process only. */
  shared?: TokenShare;
  /** Time limit of one token request or service call, ms. Default 10 000. */
  timeoutMs?: number;
  /** A token is not used within this long of its expiry (at most half its life), ms. Default 60 000. */
  expiryMarginMs?: number;
  /** Largest service answer read, bytes (an NRPS page of 100 members with every claim is ~60 KiB). Default 4 MiB. */
  maxAnswerBytes?: number;
  /** Send the token to plain-http loopback service URLs too (`lti.allowLoopbackHttp`, development). Default false. */
  allowLoopbackHttp?: boolean;
  /** The integrator's product and contact, after the package's own in `User-Agent` (`lti.userAgent`). */
  userAgent?: string;
}

const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id";
const ASSERTION_LIFE_SEC = 300;
const TOKEN_ANSWER_BYTES = 64 * 1024;
/** The assertion's `iat` this far in the past: a token endpoint whose clock is a little behind must not see it issued in its future. */
const IAT_SKEW_SEC = 5;

/** The cache key: the registration and its scopes, sorted, so order never splits the cache. */
export function tokenKey(registration: Pick<Registration, "issuer" | "clientId" | "tokenUrl">, scopes: readonly string[]): string {
  return [registration.issuer, registration.clientId, registration.tokenUrl ?? "", [...new Set(scopes)].sort().join(" ")].join("\u0000");
}

export function createServiceAccess(deps: ServiceAccessDeps): ServiceAccess {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const marginMs = deps.expiryMarginMs ?? 60_000;
  const maxBytes = deps.maxAnswerBytes ?? 4 * 1024 * 1024;
  const cache = new Map<string, CachedToken>();
  const inFlight = new Map<string, Promise<CachedToken>>();
  const { logger } = deps;
  const userAgent = userAgentOf(deps.userAgent);

  async function assertion(r: Registration): Promise<string> {
    const { kid, key } = deps.keys.signing();
    const now = Math.floor(Date.now() / 1000) - IAT_SKEW_SEC;
    const deployment = r.deployments.size === 1 ? [...r.deployments.keys()][0] : undefined;
    return new SignJWT(deployment === undefined ? {} : { [DEPLOYMENT_CLAIM]: deployment })
      .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
      .setIssuer(r.clientId).setSubject(r.clientId).setAudience(r.tokenUrl!)
      .setIssuedAt(now).setExpirationTime(now + IAT_SKEW_SEC + ASSERTION_LIFE_SEC).setJti(randomUUID())
      .sign(key);
  }

  /** Asks the LMS's token endpoint. */
  async function request(r: Registration, scopes: readonly string[]): Promise<CachedToken> {
    const where = { event: "lti_token", issuer: r.issuer, clientId: r.clientId, tokenUrl: r.tokenUrl };
    const body = new URLSearchParams({ grant_type: "client_credentials", client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(r), scope: [...new Set(scopes)].sort().join(" ") });
    const started = Date.now();
    const reply = await exchange({ url: r.tokenUrl!, method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json", "User-Agent": userAgent }, body: body.toString(), timeoutMs, maxBytes: TOKEN_ANSWER_BYTES });
    if (!reply.ok) {
      const message = `The LMS's token endpoint ${r.tokenUrl} could not be used (${reply.why}${reply.status ? ` ${reply.status}` : ""}): check the registration's tokenUrl and that the LMS is reachable from this server.`;
      logger.warn({ ...where, outcome: reply.why, status: reply.status }, message);
      throw new ServiceAccessError("unreachable", message, reply.status);
    }
    const answer = bodyOf(reply.text) as Record<string, unknown> | string | undefined;
    const fields = typeof answer === "object" && answer !== null ? answer : {};
    if (reply.status === 400 || reply.status === 401) {
      const error = typeof fields.error === "string" ? fields.error.slice(0, 64) : undefined;
      const message = `The LMS refused the tool's token request for client id ${r.clientId} (${reply.status}${error ? ` ${error}` : ""}): ${fixFor(error, r, scopes)}`;
      logger.warn({ ...where, outcome: "refused", status: reply.status, error, fix: fixFor(error, r, scopes) }, message);
      throw new ServiceAccessError("token_refused", message, reply.status);
    }
    const token = fields.access_token;
    const life = Number(fields.expires_in ?? 3600);
    if (reply.status >= 500 || reply.status === 429) {
      // The LMS's own failure (or its rate limit): the registration may well be right; the caller tries again later.
      const message = `The LMS's token endpoint ${r.tokenUrl} failed (${reply.status}): a fault or limit on the LMS's side, not in the tool's registration; it is asked again later.`;
      logger.warn({ ...where, outcome: "lms_failed", status: reply.status }, message);
      throw new ServiceAccessError("unreachable", message, reply.status);
    }
    if (reply.status < 200 || reply.status >= 300 || typeof token !== "string" || token === "" || !Number.isFinite(life) || life <= 0) {
      const message = `The LMS's token endpoint ${r.tokenUrl} answered ${reply.status} without a usable access_token: check that the registration's tokenUrl is the LMS's token endpoint.`;
      logger.warn({ ...where, outcome: "bad_answer", status: reply.status }, message);
      throw new ServiceAccessError("bad_answer", message, reply.status);
    }
    const lifeMs = life * 1000;
    logger.debug({ ...where, outcome: "issued", expiresInSec: life, ms: Date.now() - started }, "an LMS access token was issued");
    return { token, until: started + lifeMs - Math.min(marginMs, lifeMs / 2) };
  }

  /** The LMS's token, or the fleet's when another instance is asking. */
  async function fetchShared(key: string, r: Registration, scopes: readonly string[]): Promise<CachedToken> {
    const shared = deps.shared;
    if (!shared) return request(r, scopes);
    const deadline = Date.now() + shared.waitMs;
    for (;;) {
      const known = await shared.get(key).catch(() => undefined);
      if (known && known.until > Date.now()) return known;
      const ours = await shared.lock(key).catch(() => true);
      if (ours || Date.now() >= deadline) {
        let got: CachedToken | undefined;
        try {
          got = await request(r, scopes);
          return got;
        } finally {
          await shared.put(key, got).catch(() => undefined);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, shared.pollMs));
    }
  }

  async function cached(r: Registration, scopes: readonly string[]): Promise<CachedToken> {
    if (!r.tokenUrl) {
      throw new ServiceAccessError("no_token_url", `Registration ${r.issuer} (client id ${r.clientId}) has no tokenUrl: add the LMS's token endpoint as lti.registrations[].tokenUrl (Canvas: https://sso.canvaslms.com/login/oauth2/token; Moodle: <site>/mod/lti/token.php), or register again by Dynamic Registration.`);
    }
    const key = tokenKey(r, scopes);
    const hit = cache.get(key);
    if (hit && hit.until > Date.now()) return hit;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = fetchShared(key, r, scopes).then((got) => {
        cache.set(key, got);
        return got;
      }).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  }

  return {
    token: async (r, scopes) => (await cached(r, scopes)).token,
    async call(r, scopes, req) {
      if (!isServiceUrl(req.url, deps.allowLoopbackHttp ?? false)) {
        const message = `The LMS service URL ${serviceName(req.url)} was not used: the tool sends its token only to https URLs${deps.allowLoopbackHttp ? " (or plain http on loopback)" : " (plain http on loopback only with lti.allowLoopbackHttp, for development)"}.`;
        logger.warn({ event: "lti_service_url_refused", issuer: r.issuer, clientId: r.clientId, url: serviceName(req.url) }, message);
        throw new ServiceAccessError("unsafe_url", message);
      }
      for (let attempt = 0; ; attempt++) {
        const held = await cached(r, scopes);
        const headers: Record<string, string> = { Accept: req.accept, Authorization: `Bearer ${held.token}`, "User-Agent": userAgent };
        if (req.contentType) headers["Content-Type"] = req.contentType;
        const reply = await exchange({
          url: req.url, method: req.method ?? "GET", headers, timeoutMs: req.timeoutMs ?? timeoutMs, maxBytes,
          body: req.body === undefined ? undefined : typeof req.body === "string" ? req.body : JSON.stringify(req.body),
        });
        if (!reply.ok) throw new ServiceAccessError("unreachable", `The LMS service ${serviceName(req.url)} could not be used (${reply.why}${reply.status ? ` ${reply.status}` : ""}).`, reply.status);
        if (reply.status === 401 && attempt === 0) {
          // The LMS dropped the token early (revoked, restarted, key rotated): one fresh try.
          const key = tokenKey(r, scopes);
          if (cache.get(key)?.token === held.token) cache.delete(key);
          await deps.shared?.put(key, undefined).catch(() => undefined);
          logger.info({ event: "lti_service_401", issuer: r.issuer, clientId: r.clientId, url: serviceName(req.url) }, "an LMS service refused the cached token; asking for a fresh one");
          continue;
        }
        if (reply.status >= 200 && reply.status < 300) return { status: reply.status, headers: reply.headers, body: bodyOf(reply.text), chars: reply.text.length };
        const message = reply.status === 401 || reply.status === 403
          ? `The LMS service ${serviceName(req.url)} refused the tool (${reply.status}) with a fresh token: check that the tool's registration (developer key) has the scopes ${scopes.join(" ")} and is deployed in this course.`
          : `The LMS service ${serviceName(req.url)} answered ${reply.status}.`;
        const retryAfterMs = reply.status === 429 || reply.status === 503 ? parseRetryAfter(reply.headers["retry-after"]) : undefined;
        throw new ServiceAccessError(reply.status >= 500 || reply.status === 429 ? "unreachable" : "refused", message, reply.status, retryAfterMs);
      }
    },
  };
}

/** The service URL without its query (which may carry identifiers the LMS signs). */
function serviceName(url: string): string {
  return URL.canParse(url) ? `${new URL(url).origin}${new URL(url).pathname}` : "(not a URL)";
}

/** What to fix on the LMS's side for an OAuth error code (RFC 6749 §5.2). */
function fixFor(error: string | undefined, r: Registration, scopes: readonly string[]): string {
  switch (error) {
    case "invalid_scope":
      return `enable the scopes ${scopes.join(" ")} on the LMS's registration of this tool (Canvas: the developer key's LTI Advantage Services; Moodle: the tool's Services settings).`;
    case "unauthorized_client":
      return "allow the client_credentials grant for this tool in the LMS (and check it is deployed where the service is used).";
    case "invalid_client":
      return `the LMS does not accept the tool as client id ${r.clientId}: check the registration's client id and that the LMS has the tool's key set URL (<mount>/lti/jwks.json) or its current public key.`;
    case "invalid_grant":
      return "the LMS did not accept the signed assertion's claims: check this server's clock (within a minute of the LMS's) and that the registration's tokenUrl is the LMS's exact token URL (it is the assertion's audience).";
    default:
      return `check that the LMS's registration of client id ${r.clientId} uses the tool's key set URL (<mount>/lti/jwks.json) or its current public key, that this tool's signing key is published there, and that tokenUrl is the LMS's token endpoint.`;
  }
}
