/**
 * The LMS emulator's side of LTI Dynamic Registration: an OpenID configuration that
 * requires the Bearer registration token (as Canvas does), a registration endpoint that
 * checks the tool's registration JSON and answers a new client id, and a page that opens
 * the tool's registration URL in a frame and waits for its close message. Faults:
 * `issuer_mismatch` (an issuer on another host) and `refuse_registration` (a 400 answer).
 */
import { randomUUID } from "node:crypto";
import express, { type Router } from "express";
import { escapeHtml } from "../../core/html.js";

export const REGISTRATION_FAULTS = ["issuer_mismatch", "refuse_registration"] as const;
export type RegistrationFault = (typeof REGISTRATION_FAULTS)[number];

/** A registration the emulator accepted. */
export interface ToolRegistration {
  clientId: string;
  /** The tool's registration request, as posted. */
  request: Record<string, unknown>;
}

export interface AdoptedTool {
  clientId: string;
  login: string;
  redirect: string;
  /** The scopes the registration asked for (its `scope`, space-separated): all it is granted. */
  scopes: string[];
}

const TOOL = "https://purl.imsglobal.org/spec/lti-tool-configuration";
const MESSAGES = new Set(["LtiResourceLinkRequest", "LtiDeepLinkingRequest"]);
const isUrl = (v: unknown): v is string => typeof v === "string" && URL.canParse(v) && /^https?:$/.test(new URL(v).protocol);

/** What a registration request lacks; empty when sound. */
export function registrationProblems(body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const has = (list: unknown, value: string) => Array.isArray(list) && list.includes(value);
  if (body.application_type !== "web") problems.push("application_type must be web");
  if (!has(body.response_types, "id_token")) problems.push("response_types must include id_token");
  if (!has(body.grant_types, "implicit") || !has(body.grant_types, "client_credentials")) problems.push("grant_types must include implicit and client_credentials");
  if (!isUrl(body.initiate_login_uri)) problems.push("initiate_login_uri must be a URL");
  const redirects = body.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0 || !redirects.every(isUrl)) problems.push("redirect_uris must be a non-empty array of URLs");
  if (!isUrl(body.jwks_uri)) problems.push("jwks_uri must be a URL");
  if (body.token_endpoint_auth_method !== "private_key_jwt") problems.push("token_endpoint_auth_method must be private_key_jwt");
  if (typeof body.client_name !== "string" || body.client_name === "") problems.push("client_name must be a string");
  if (body.scope !== undefined && typeof body.scope !== "string") problems.push("scope must be a space-separated string");
  const tool = body[TOOL] as Record<string, unknown> | undefined;
  if (typeof tool !== "object" || tool === null) return [...problems, `${TOOL} must be an object`];
  if (typeof tool.domain !== "string" || tool.domain === "") problems.push("domain must be a host");
  if (!isUrl(tool.target_link_uri)) problems.push("target_link_uri must be a URL");
  else if (!Array.isArray(redirects) || !redirects.includes(tool.target_link_uri)) problems.push("target_link_uri must be one of the redirect_uris");
  for (const url of [body.initiate_login_uri, tool.target_link_uri]) if (isUrl(url) && new URL(url).host !== tool.domain) problems.push(`${url} is not on the tool's domain`);
  const messages = tool.messages;
  if (!Array.isArray(messages) || !messages.every((m: { type?: unknown; target_link_uri?: unknown }) => MESSAGES.has(m?.type as string) && (m.target_link_uri === undefined || isUrl(m.target_link_uri)))) {
    problems.push("messages must list LtiResourceLinkRequest or LtiDeepLinkingRequest messages");
  }
  return problems;
}

export function registrationSide(ctx: { base: () => string; adopt: (tool: AdoptedTool) => void }) {
  const tokens = new Set<string>();
  const registrations: ToolRegistration[] = [];
  let fault: RegistrationFault | undefined;
  const router: Router = express.Router();
  const bearer = (req: express.Request) => /^Bearer (.+)$/.exec(req.get("authorization") ?? "")?.[1];

  /** The URL an administrator's *Register by URL* opens: the tool's registration URL with a fresh token. */
  const startUrl = (toolRegisterUrl: string): string => {
    const token = `reg-${randomUUID()}`;
    tokens.add(token);
    const url = new URL(toolRegisterUrl);
    url.searchParams.set("openid_configuration", `${ctx.base()}/openid-configuration`);
    url.searchParams.set("registration_token", token);
    return url.href;
  };

  router.get("/openid-configuration", (req, res) => {
    const token = bearer(req);
    if (token === undefined || !tokens.has(token)) return void res.status(401).json({ error: "invalid_token" });
    const base = ctx.base();
    res.setHeader("Cache-Control", "no-store");
    res.json({
      issuer: fault === "issuer_mismatch" ? "https://another-lms.example" : base,
      authorization_endpoint: `${base}/auth`, token_endpoint: `${base}/token`, jwks_uri: `${base}/jwks`, registration_endpoint: `${base}/register`,
      scopes_supported: ["openid"], response_types_supported: ["id_token"], id_token_signing_alg_values_supported: ["RS256"],
      subject_types_supported: ["public", "pairwise"], claims_supported: ["iss", "sub", "name", "given_name", "family_name", "email"],
      "https://purl.imsglobal.org/spec/lti-platform-configuration": {
        product_family_code: "express-oral-assessments-lms-emulator", version: "1",
        messages_supported: [{ type: "LtiResourceLinkRequest" }, { type: "LtiDeepLinkingRequest" }],
      },
    });
  });

  router.post("/register", express.json({ limit: "64kb" }), (req, res) => {
    const token = bearer(req);
    if (token === undefined || !tokens.has(token)) return void res.status(401).json({ error: "invalid_token" });
    const body = (req.body ?? {}) as Record<string, unknown>;
    const problems = fault === "refuse_registration" ? ["registrations are refused (fault)"] : registrationProblems(body);
    if (problems.length > 0) return void res.status(400).json({ error: "invalid_client_metadata", error_description: problems.join("; ") });
    tokens.delete(token); // single use
    const clientId = `dr-${randomUUID().slice(0, 8)}`;
    registrations.push({ clientId, request: body });
    const scopes = typeof body.scope === "string" ? body.scope.split(" ").filter(Boolean) : [];
    ctx.adopt({ clientId, login: body.initiate_login_uri as string, redirect: (body[TOOL] as { target_link_uri: string }).target_link_uri, scopes });
    res.json({ ...body, client_id: clientId });
  });

  // For a browser: the tool's registration page in a frame, as Canvas shows it, and its close message.
  router.get("/dynamic-registration", (req, res) => {
    const tool = String(req.query.tool ?? "");
    if (!isUrl(tool)) return void res.status(400).type("text/plain").send("?tool=<the tool's registration URL> is required");
    res.setHeader("Cache-Control", "no-store");
    res.type("html").send(`<!doctype html><html><head><meta charset="utf-8"><title>Register a tool</title></head><body>
<h1>Register a tool</h1><p id="status">Registering…</p>
<iframe title="Tool registration" src="${escapeHtml(startUrl(tool))}" style="width:100%;height:300px;border:1px solid #999"></iframe>
<script>addEventListener("message",function(e){if(e.data&&e.data.subject==="org.imsglobal.lti.close"){document.getElementById("status").textContent="Registration closed by the tool.";}});</script>
</body></html>`);
  });

  return {
    router,
    startUrl,
    get registrations(): readonly ToolRegistration[] { return registrations; },
    setFault(next: RegistrationFault | undefined) {
      if (next !== undefined && !REGISTRATION_FAULTS.includes(next)) throw new Error(`unknown registration fault ${String(next)}`);
      fault = next;
    },
  };
}
