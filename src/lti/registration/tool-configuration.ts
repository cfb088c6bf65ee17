/**
 * What Dynamic Registration reads and writes: the LMS's OpenID configuration, checked,
 * and the tool's registration request (LTI Dynamic Registration 1.0 §3.5, with Canvas's
 * privacy level so the e-mail arrives). The tool asks for the LTI Advantage scopes it uses
 * and no other (`toolScopes`): an LMS grants what a registration asks for. No global
 * `exam_id` custom parameter: each link carries its own (Deep Linking sets it).
 */
import { isLmsUrl } from "../shared/lms-url.js";
import { LTI_SCOPES } from "../lms/service-access.js";

/**
 * The scopes the tool uses: the gradebook's (AGS: line items, their results, scores) when
 * it is on, and always the roster's (NRPS: *Prepare this exam for the course*) and the
 * notice handlers' (PNS: course copy notices, notices.ts).
 */
export function toolScopes(uses: { gradebook: unknown }): string[] {
  const ags = uses.gradebook === undefined ? [] : [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly, LTI_SCOPES.resultReadonly, LTI_SCOPES.score];
  return [...ags, LTI_SCOPES.memberships, LTI_SCOPES.noticeHandlers];
}

export const PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration";
export const TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration";

export interface PlatformConfiguration {
  issuer: string;
  authorizationUrl: string;
  jwksUrl: string;
  tokenUrl: string | undefined;
  registrationEndpoint: string;
  productFamilyCode: string | undefined;
  version: string | undefined;
  /** Undefined when the LMS does not say. */
  deepLinking: boolean | undefined;
}

export type ConfigurationCheck = { config: PlatformConfiguration } | { problem: string; forAdministrator: string };

/**
 * The spec's rules: the issuer's host is the configuration URL's host, and (our rule, so
 * the only POST goes where the LMS's own URL points) the registration endpoint is on the
 * configuration URL's origin.
 */
export function readPlatformConfiguration(json: unknown, configurationUrl: URL): ConfigurationCheck {
  const c = (json ?? {}) as Record<string, unknown>;
  const missing = ["issuer", "authorization_endpoint", "jwks_uri", "registration_endpoint"].filter((k) => !isLmsUrl(c[k]));
  if (c.token_endpoint !== undefined && !isLmsUrl(c.token_endpoint)) missing.push("token_endpoint");
  if (missing.length > 0) {
    return { problem: "openid_configuration_invalid", forAdministrator: `The LMS's OpenID configuration lacks valid https URLs for ${missing.join(", ")}.` };
  }
  const issuer = new URL(c.issuer as string);
  if (issuer.host !== configurationUrl.host) {
    return { problem: "issuer_mismatch", forAdministrator: `The LMS's issuer ${issuer.origin} is not on the host of its OpenID configuration URL (${configurationUrl.host}), as Dynamic Registration requires.` };
  }
  if (new URL(c.registration_endpoint as string).origin !== configurationUrl.origin) {
    return { problem: "registration_endpoint", forAdministrator: `The LMS's registration endpoint is not on ${configurationUrl.origin}, the origin of its OpenID configuration URL; this tool registers only there.` };
  }
  const algs = c.id_token_signing_alg_values_supported;
  if (Array.isArray(algs) && !algs.includes("RS256")) {
    return { problem: "signing_alg", forAdministrator: "The LMS does not sign launches with RS256, which LTI 1.3 requires." };
  }
  const platform = (c[PLATFORM_CONFIGURATION] ?? {}) as Record<string, unknown>;
  const messages = Array.isArray(platform.messages_supported) ? (platform.messages_supported as { type?: unknown }[]) : undefined;
  return {
    config: {
      issuer: c.issuer as string, authorizationUrl: c.authorization_endpoint as string, jwksUrl: c.jwks_uri as string,
      tokenUrl: c.token_endpoint as string | undefined, registrationEndpoint: c.registration_endpoint as string,
      productFamilyCode: typeof platform.product_family_code === "string" ? platform.product_family_code.slice(0, 100) : undefined,
      version: typeof platform.version === "string" ? platform.version.slice(0, 100) : undefined,
      deepLinking: messages === undefined ? undefined : messages.some((m) => m?.type === "LtiDeepLinkingRequest"),
    },
  };
}

/** The tool's registration request, its URLs under `base` (the mount's public URL). */
export function toolRegistration(base: string, name: string, config: PlatformConfiguration, scopes: readonly string[]): Record<string, unknown> {
  const launch = `${base}/lti/launch`;
  const canvas = config.productFamilyCode === "canvas";
  const messages: Record<string, unknown>[] = [{ type: "LtiResourceLinkRequest", target_link_uri: launch, label: name }];
  if (config.deepLinking !== false) {
    messages.push({
      type: "LtiDeepLinkingRequest", target_link_uri: launch, label: "Add an oral exam",
      // Canvas places a message only where told; others offer deep linking wherever content is added.
      ...(canvas ? { placements: ["link_selection", "assignment_selection"] } : {}),
    });
  }
  return {
    application_type: "web",
    response_types: ["id_token"],
    grant_types: ["implicit", "client_credentials"],
    initiate_login_uri: `${base}/lti/login`,
    redirect_uris: [launch],
    client_name: name,
    jwks_uri: `${base}/lti/jwks.json`,
    token_endpoint_auth_method: "private_key_jwt",
    scope: scopes.join(" "),
    [TOOL_CONFIGURATION]: {
      domain: new URL(base).host,
      target_link_uri: launch,
      claims: ["iss", "sub", "name", "given_name", "family_name", "email"],
      messages,
      // Canvas sends names and e-mail only at "public": the launch needs the e-mail.
      "https://canvas.instructure.com/lti/privacy_level": "public",
    },
  };
}
