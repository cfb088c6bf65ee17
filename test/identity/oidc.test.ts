/**
 * studentFromUser on ID-token claims as openid-client returns them after it has validated
 * a real exchange: a tiny OpenID provider on 127.0.0.1 (discovery, JWKS, token endpoint)
 * signs ID tokens with jose; openid-client discovers it, redeems a code (or, for the LTI 1.3
 * launch, validates a form-posted ID token) and hands back `claims()`, the object a
 * passport/openid-client verify callback puts on `req.user`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { studentFromUser } from "../../src/identity/student-from-user.js";

const CLIENT_ID = "oral-client";
const CLIENT_SECRET = "oral-client-secret";
let server: Server;
let issuer: string;
let sign: (claims: Record<string, unknown>) => Promise<string>;
/** Claims the token endpoint puts in the next ID token (set by each test). */
let nextClaims: Record<string, unknown> = {};

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  sign = (claims) => new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(issuer).setAudience(CLIENT_ID).setIssuedAt().setExpirationTime("5m").sign(privateKey);

  server = createServer((req, res) => {
    const json = (body: unknown) => { res.setHeader("Content-Type", "application/json"); res.end(JSON.stringify(body)); };
    if (req.url === "/.well-known/openid-configuration") {
      return json({
        issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code", "id_token"], subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["ES256"],
      });
    }
    if (req.url === "/jwks") return json({ keys: [jwk] });
    if (req.url === "/token" && req.method === "POST") {
      void sign(nextClaims).then((idToken) => json({ access_token: "at", token_type: "Bearer", expires_in: 300, id_token: idToken }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

const discover = () => client.discovery(new URL(issuer), CLIENT_ID, CLIENT_SECRET, undefined, { execute: [client.allowInsecureRequests] });

describe("studentFromUser on openid-client's validated ID-token claims", () => {
  it("authorization code flow (Google, Entra ID, Keycloak … as an OpenID provider)", async () => {
    const config = await discover();
    const nonce = client.randomNonce();
    const state = client.randomState();
    const verifier = client.randomPKCECodeVerifier();
    nextClaims = { sub: "248289761001", nonce, email: "ana.lima@example.edu", email_verified: true, given_name: "Ana", family_name: "Lima", name: "Ana Lima" };
    const tokens = await client.authorizationCodeGrant(config, new URL(`http://127.0.0.1/callback?code=c1&state=${state}`), {
      expectedNonce: nonce, expectedState: state, pkceCodeVerifier: verifier,
    });
    const claims = tokens.claims();
    expect(claims?.iss).toBe(issuer); // really validated and decoded by openid-client
    expect(studentFromUser(claims)).toEqual({ email: "ana.lima@example.edu", firstName: "Ana", lastName: "Lima", orgInternalId: "248289761001" });
  });

  it("a provider that sends only `name`: the name is split", async () => {
    const config = await discover();
    const nonce = client.randomNonce();
    nextClaims = { sub: "u-77", nonce, email: "ben@example.edu", name: "Ben Okafor" };
    const tokens = await client.authorizationCodeGrant(config, new URL("http://127.0.0.1/callback?code=c2"), { expectedNonce: nonce });
    expect(studentFromUser(tokens.claims())).toEqual({ email: "ben@example.edu", firstName: "Ben", lastName: "Okafor", orgInternalId: "u-77" });
  });

  it("an LTI 1.3 launch (a form-posted ID token with LTI claims)", async () => {
    const config = await discover();
    client.useIdTokenResponseType(config);
    const nonce = client.randomNonce();
    const state = client.randomState();
    const idToken = await sign({
      sub: "lms-user-9f3a", nonce, given_name: "Chloé", family_name: "Dubois", name: "Chloé Dubois", email: "chloe.dubois@example.edu",
      "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiResourceLinkRequest",
      "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
      "https://purl.imsglobal.org/spec/lti/claim/deployment_id": "d1",
      "https://purl.imsglobal.org/spec/lti/claim/roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
    });
    const launch = new Request("http://127.0.0.1/lti/launch", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ id_token: idToken, state }),
    });
    const claims = await client.implicitAuthentication(config, launch, nonce, { expectedState: state });
    expect(claims["https://purl.imsglobal.org/spec/lti/claim/version"]).toBe("1.3.0");
    expect(studentFromUser(claims)).toEqual({ email: "chloe.dubois@example.edu", firstName: "Chloé", lastName: "Dubois", orgInternalId: "lms-user-9f3a" });
  });
});
