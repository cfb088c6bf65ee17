/**
 * The LMS emulator's OAuth 2 token endpoint (`POST /token`), as an LMS serves LTI
 * Advantage services: client credentials with a JWT client assertion (1EdTech Security
 * Framework §4.1.1) verified against the tool's key set (`<tool>/lti/jwks.json`, fetched
 * and cached), `iss` = `sub` = the client id, `aud` = this token URL, a `jti` used once.
 * It issues opaque bearer tokens (`expires_in` 3600 by default, settable for tests) and
 * offers `verifyBearer(req, res, scope)` to the emulator's services (NRPS, AGS).
 */
import { randomBytes } from "node:crypto";
import express, { type Request, type RequestHandler, type Response } from "express";
import { createRemoteJWKSet, jwtVerify } from "jose";

/** Every scope the emulator can grant; a registration is granted only those it was given (`granted`). */
export const GRANTABLE_SCOPES = new Set([
  "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
  "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
  "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
  "https://purl.imsglobal.org/spec/lti-ags/scope/score",
  "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
  "https://purl.imsglobal.org/spec/lti/scope/noticehandlers",
]);

/** What the token endpoint has done, for tests. */
export interface TokenCounts {
  /** Token requests received (granted or not). */
  requests: number;
  /** Tokens issued. */
  issued: number;
  /** Requests refused (400/401). */
  refused: number;
  /** Service calls refused for a missing, unknown, expired or under-scoped token. */
  bearerRefused: number;
}

export interface TokenSide {
  route: RequestHandler[];
  /** True when the request's bearer token is live and carries `scope`; otherwise answers 401/403 and false. */
  verifyBearer(req: Request, res: Response, scope: string): boolean;
  readonly counts: TokenCounts;
  /** The `expires_in` of the next tokens, seconds. */
  setTokenLifetime(sec: number): void;
  /** Forgets every issued token (an LMS restart or a revoked key): services answer 401 until a new one is asked for. */
  revokeTokens(): void;
}

interface Issued { scopes: Set<string>; until: number }

/**
 * `granted`: the scopes the tool's registration holds, as an LMS's administrator enabled
 * them (manual) or as the tool asked (Dynamic Registration); others are `invalid_scope`.
 */
export function tokenSide(ctx: { tokenUrl: () => string; clientId: () => string; toolRoot: () => string | undefined; granted: () => ReadonlySet<string> }): TokenSide {
  const tokens = new Map<string, Issued>();
  const usedJti = new Map<string, number>();
  const counts: TokenCounts = { requests: 0, issued: 0, refused: 0, bearerRefused: 0 };
  let lifetimeSec = 3600;
  let keySet: { url: string; get: ReturnType<typeof createRemoteJWKSet> } | undefined;
  const toolKeys = (root: string) => {
    const url = `${root}/lti/jwks.json`;
    if (keySet?.url !== url) keySet = { url, get: createRemoteJWKSet(new URL(url), { cooldownDuration: 0 }) };
    return keySet.get;
  };
  const refuse = (res: Response, status: 400 | 401, error: string, description: string) => {
    counts.refused += 1;
    res.status(status).setHeader("Cache-Control", "no-store");
    res.json({ error, error_description: description });
  };

  const handle: RequestHandler = (req, res) => {
    counts.requests += 1;
    const p = (req.body ?? {}) as Record<string, unknown>;
    if (p.grant_type !== "client_credentials") return refuse(res, 400, "unsupported_grant_type", "grant_type must be client_credentials");
    if (p.client_assertion_type !== "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") return refuse(res, 400, "invalid_request", "client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    if (typeof p.client_assertion !== "string") return refuse(res, 400, "invalid_request", "client_assertion is missing");
    const scopes = typeof p.scope === "string" ? p.scope.split(" ").filter(Boolean) : [];
    if (scopes.length === 0) return refuse(res, 400, "invalid_scope", "scope is missing");
    const unknown = scopes.filter((s) => !ctx.granted().has(s));
    if (unknown.length > 0) return refuse(res, 400, "invalid_scope", `not granted: ${unknown.join(" ")}`);
    const root = ctx.toolRoot();
    if (!root) return refuse(res, 401, "invalid_client", "no tool is registered with this LMS");
    void jwtVerify(p.client_assertion, toolKeys(root), {
      algorithms: ["RS256"], issuer: ctx.clientId(), subject: ctx.clientId(), audience: ctx.tokenUrl(), requiredClaims: ["iat", "exp", "jti"], clockTolerance: 30,
    }).then(({ payload }) => {
      const now = Date.now();
      for (const [jti, until] of usedJti) if (until < now) usedJti.delete(jti);
      if (usedJti.has(payload.jti!)) return refuse(res, 400, "invalid_grant", "the assertion's jti was used before");
      usedJti.set(payload.jti!, (payload.exp! + 60) * 1000);
      const token = randomBytes(24).toString("base64url");
      tokens.set(token, { scopes: new Set(scopes), until: now + lifetimeSec * 1000 });
      counts.issued += 1;
      res.setHeader("Cache-Control", "no-store");
      res.json({ access_token: token, token_type: "Bearer", expires_in: lifetimeSec, scope: scopes.join(" ") });
    }, (error: Error) => refuse(res, 401, "invalid_client", `the client assertion does not verify against the tool's key set: ${error.message}`));
  };

  return {
    route: [express.urlencoded({ extended: false, limit: "64kb" }), handle],
    verifyBearer(req, res, scope) {
      const header = req.get("authorization") ?? "";
      const token = /^Bearer (\S+)$/i.exec(header)?.[1];
      const issued = token === undefined ? undefined : tokens.get(token);
      if (!issued || issued.until <= Date.now()) {
        counts.bearerRefused += 1;
        res.status(401).setHeader("WWW-Authenticate", 'Bearer error="invalid_token"');
        res.json({ error: "invalid_token" });
        return false;
      }
      if (!issued.scopes.has(scope)) {
        counts.bearerRefused += 1;
        res.status(403).setHeader("WWW-Authenticate", `Bearer error="insufficient_scope", scope="${scope}"`);
        res.json({ error: "insufficient_scope" });
        return false;
      }
      return true;
    },
    counts,
    setTokenLifetime(sec) { lifetimeSec = sec; },
    revokeTokens() { tokens.clear(); },
  };
}
