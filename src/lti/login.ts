/**
 * `GET` and `POST /lti/login`: OIDC third-party-initiated login (1EdTech Security
 * Framework §5.1.1.1-2). Finds the registration by (iss, client_id), keeps a fresh state
 * and nonce server-side, binds them to this browser (a `SameSite=None; Secure` cookie,
 * and Platform Storage when the LMS offers `lti_storage_target`) and sends the browser to
 * the registration's authorization URL with the exact registered `redirect_uri`.
 */
import type { Request, Response } from "express";
import { randomId } from "../core/random-id.js";
import type { Logger } from "../core/logger.js";
import type { LoginStates } from "./login-state.js";
import { originsOf } from "./registrations.js";
import type { RegistrationSource } from "./registration-source.js";
import { escapeHtml, jsonBlock, ltiHeaders, sendLtiPage, useFrameAncestors } from "./pages.js";
import { storageKey, storageScript } from "./platform-storage.js";
import type { LtiSettings } from "./settings.js";
import { launchUrl } from "./tool-url.js";
import { refuse } from "./refusal.js";

/** The cookie of a login's state (one per state, so two launches in two tabs do not collide). */
export const stateCookie = (state: string) => `eoa_lti_${state}`;

const REQUIRED = ["iss", "login_hint", "target_link_uri"] as const;
const OPTIONAL = ["lti_message_hint", "client_id", "lti_deployment_id", "lti_storage_target"] as const;

export function loginRoute(settings: LtiSettings, registrations: RegistrationSource, states: LoginStates, logger: Logger, frameAncestors: readonly string[]) {
  return async (req: Request, res: Response): Promise<void> => {
    const source = (req.method === "POST" ? req.body : req.query) as Record<string, unknown> | undefined;
    const params: Record<string, string> = {};
    for (const name of [...REQUIRED, ...OPTIONAL]) {
      const v = source?.[name];
      if (typeof v === "string" && v.length > 0 && v.length <= 4096) params[name] = v;
    }
    const missing = REQUIRED.filter((n) => params[n] === undefined);
    if (missing.length > 0) {
      return refuse(res, logger, frameAncestors, { status: 400, check: "login_parameters", detail: { missing },
        title: "This launch could not start",
        forAdministrator: `The LMS's login request lacks ${missing.join(", ")}. Check that the tool's login URL is configured as its OIDC login (initiation) URL.` });
    }
    const lookup = await registrations.find(params.iss!, params.client_id);
    if ("problem" in lookup) {
      const why = lookup.problem === "ambiguous_issuer"
        ? `Several registrations share the issuer ${params.iss}; the LMS must send client_id with the login.`
        : `This tool has no registration for issuer ${params.iss}${params.client_id ? ` and client id ${params.client_id}` : ""}. Add it to the tool's lti.registrations, or register the tool with Dynamic Registration.`;
      return refuse(res, logger, frameAncestors, { status: 400, check: lookup.problem, detail: { iss: params.iss, clientId: params.client_id }, title: "This tool is not registered for your LMS", forAdministrator: why });
    }
    const registration = lookup.found;
    // Only this registration's LMS may frame what follows (an inactive one: to show the page below).
    useFrameAncestors(res, originsOf(registration));
    if (!registration.active) {
      return refuse(res, logger, frameAncestors, { status: 403, check: "registration_inactive", detail: { iss: registration.issuer, clientId: registration.clientId },
        title: "This tool is not activated for your LMS yet",
        forAdministrator: `The tool's registration for issuer ${registration.issuer}, client id ${registration.clientId} waits for activation by the tool's administrator (docs/lti.md, "Dynamic Registration").` });
    }
    const state = randomId(24);
    const nonce = randomId(24);
    const browserSecret = randomId(24);
    const storageTarget = params.lti_storage_target;
    const { lti_storage_target: _, ...login } = params;
    await states.put(state, { nonce, issuer: registration.issuer, clientId: registration.clientId, deploymentId: params.lti_deployment_id, browserSecret, storageTarget, login });

    const auth = new URL(registration.authorizationUrl);
    const query: Record<string, string> = {
      scope: "openid", response_type: "id_token", response_mode: "form_post", prompt: "none",
      client_id: registration.clientId, redirect_uri: launchUrl(req, settings.toolUrl), login_hint: params.login_hint!, state, nonce,
    };
    if (params.lti_message_hint !== undefined) query.lti_message_hint = params.lti_message_hint;
    for (const [k, v] of Object.entries(query)) auth.searchParams.set(k, v);

    res.cookie(stateCookie(state), browserSecret, {
      httpOnly: true, secure: true, sameSite: "none", maxAge: settings.stateTtlSec * 1000, path: `${req.baseUrl}/lti/`,
    });
    logger.debug({ event: "lti_login", iss: registration.issuer, clientId: registration.clientId, storage: storageTarget !== undefined }, "LTI login");
    if (storageTarget === undefined) {
      ltiHeaders(res);
      res.redirect(302, auth.href);
      return;
    }
    // Platform Storage first, then on to the LMS: the launch may come back without the cookie.
    const cfg = { target: storageTarget, origin: auth.origin, subject: "lti.put_data", key: storageKey(state), value: browserSecret, timeoutMs: 3000 };
    sendLtiPage(res, frameAncestors, {
      status: 200, title: "Opening…", message: "Connecting to your LMS…",
      body: `<script type="application/json" id="lti-storage">${jsonBlock(cfg)}</script><p><a id="next" href="${escapeHtml(auth.href)}">Continue</a></p>`,
      // Whether or not the LMS stored it, go on: the cookie may still carry the state.
      script: storageScript(`location.replace(document.getElementById("next").href);`),
    });
  };
}
