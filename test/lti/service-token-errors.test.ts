/**
 * The tool's calls to an LMS's token endpoint and services (the stand-in LMS of
 * test/support/fake-lms.ts, whose token endpoint here is the test's own `/oauth`):
 * - each carries the package's `User-Agent` (name/version), then the integrator's
 *   `lti.userAgent` (Canvas refuses API calls without a descriptive one);
 * - the client assertion's `iat` is a few seconds in the past (a token endpoint whose clock
 *   is a little behind refuses an assertion issued in its future);
 * - a 500 from the token endpoint is the LMS's failure, retried later, and never blamed on
 *   the tokenUrl; a 401 `invalid_client` is the registration's, with what to check.
 */
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../src/core/package-info.js";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { createServiceAccess, LTI_SCOPES, ServiceAccessError } from "../../src/lti/lms/service-access.js";
import { json, quiet, useFakeLms, type FakeLms } from "../support/fake-lms.js";
import { TOOL_KEY_PEM } from "../support/lti.js";

const fake = useFakeLms();

function setup(lms: FakeLms, userAgent?: string): { access: ReturnType<typeof createServiceAccess>; registration: Registration } {
  const problems = new ProblemList();
  const lti = resolveLtiSettings({
    keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }],
    registrations: [{ issuer: lms.url, clientId: "client-9", authorizationUrl: `${lms.url}/auth`, jwksUrl: `${lms.url}/jwks`, tokenUrl: `${lms.url}/oauth`, deployments: ["dep-1"] }],
  }, problems)!;
  problems.throwIfAny("test");
  return { access: createServiceAccess({ keys: lti.keys, logger: quiet, allowLoopbackHttp: true, ...(userAgent ? { userAgent } : {}) }), registration: lti.registrations.all()[0]! };
}

const SCOPES = [LTI_SCOPES.score];

describe("calls to an LMS", () => {
  it("carry the package's User-Agent and the integrator's; the assertion is issued a few seconds ago", async () => {
    const { lms } = fake;
    lms.hits.length = 0;
    lms.handle = (hit, res) => (hit.path === "/oauth" ? json(res, 200, { access_token: "t-1", token_type: "Bearer", expires_in: 3600 }) : json(res, 200, []));
    const { access, registration } = setup(lms, "ExampleU-Exams/1.0 (lms-admin@example.edu)");
    const before = Math.floor(Date.now() / 1000);
    await access.call(registration, SCOPES, { url: `${lms.url}/lineitems`, accept: "application/json" });
    const expected = `${PACKAGE_NAME}/${PACKAGE_VERSION} ExampleU-Exams/1.0 (lms-admin@example.edu)`;
    expect(lms.hits.map((h) => [h.path, h.userAgent])).toEqual([["/oauth", expected], ["/lineitems", expected]]);
    const assertion = decodeJwt(new URLSearchParams(lms.hits[0]!.body).get("client_assertion")!);
    expect(assertion.iat).toBeLessThanOrEqual(before - 3);
    expect(assertion.iat).toBeGreaterThanOrEqual(before - 10);
    expect(assertion.exp! - Math.floor(Date.now() / 1000)).toBeGreaterThan(200);
  });

  it("a 500 from the token endpoint is the LMS's failure (retried), not the tokenUrl's", async () => {
    const { lms } = fake;
    lms.handle = (hit, res) => (hit.path === "/oauth" ? json(res, 500, { error: "server_error" }) : json(res, 200, []));
    const { access, registration } = setup(lms);
    const error = await access.token(registration, SCOPES).catch((e: unknown) => e) as ServiceAccessError;
    expect(error).toBeInstanceOf(ServiceAccessError);
    expect(error.kind).toBe("unreachable");
    expect(error.message).toMatch(/failed \(500\): a fault or limit on the LMS's side, not in the tool's registration/);
    expect(error.message).not.toMatch(/check/i);
  });

  it("a 401 invalid_client is the registration's: check its client id and the tool's key", async () => {
    const { lms } = fake;
    lms.handle = (hit, res) => (hit.path === "/oauth" ? json(res, 401, { error: "invalid_client" }) : json(res, 200, []));
    const { access, registration } = setup(lms);
    const error = await access.token(registration, SCOPES).catch((e: unknown) => e) as ServiceAccessError;
    expect(error.kind).toBe("token_refused");
    expect(error.message).toMatch(/\(401 invalid_client\): the LMS does not accept the tool as client id client-9: check the registration's client id/);
  });
});
