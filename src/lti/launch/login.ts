/**
 * `GET` and `POST /lti/login`: OIDC third-party-initiated login (1EdTech Security
 * Framework §5.1.1.1-2). Counts the login against its address's limit (login-limit.ts),
 * finds the registration by (iss, client_id), seals a fresh state and nonce into the
 * `state` parameter (login-state.ts: nothing is kept), binds them to this browser (its
 * one LTI cookie, browser-id.ts, and Platform Storage when the LMS offers
 * `lti_storage_target`) and sends the browser to the registration's authorization URL
 * with the exact registered `redirect_uri`.
 */
import type { Request, Response } from "express";
import { randomId } from "../../core/random-id.js";
import type { Logger } from "../../core/logger.js";
import { shortHash, useBrowserId } from "../shared/browser-id.js";
import type { LoginLimitDecision, LoginLimits } from "../options/login-limit.js";
import { reloginToCarry, type LoginStates } from "./login-state.js";
import { originsOf } from "../lms/registrations.js";
import type { RegistrationSource } from "../lms/registration-source.js";
import { escapeHtml, scriptJson } from "../../core/html.js";
import { isText } from "../../core/text.js";
import { ltiHeaders, sendLtiPage, useFrameAncestors } from "../shared/pages.js";
import { storageKey, storageScript } from "../shared/platform-storage.js";
import type { LtiSettings } from "../settings/settings.js";
import { launchUrl } from "../shared/tool-url.js";
import { refuse } from "../shared/refusal.js";

export interface LoginRouteOptions {
  limits: LoginLimits;
  /** The browser cookie's life, ms (browser-id.ts). */
  cookieMaxAgeMs: number;
}

/** LTI Core §3.1.3: a deployment id is at most 255 ASCII characters. */
const MAX_DEPLOYMENT_ID = 255;
/** A Platform Storage frame name longer than this is not used (LMSs send `post_message_forwarding` or `_parent`). */
const MAX_STORAGE_TARGET = 64;

const REQUIRED = ["iss", "login_hint", "target_link_uri"] as const;
const OPTIONAL = ["lti_message_hint", "client_id", "lti_deployment_id", "lti_storage_target"] as const;

export function loginRoute(settings: LtiSettings, registrations: RegistrationSource, states: LoginStates, logger: Logger, frameAncestors: readonly string[], options: LoginRouteOptions) {
  const tooMany = (res: Response, decision: LoginLimitDecision) => {
    res.setHeader("Retry-After", String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))));
    refuse(res, logger, frameAncestors, { status: 429, check: "login_rate", detail: { scope: "address" },
      title: "Too many launches just now", message: "Your network sent more launches to this tool than it accepts at once. Please open the link again in a minute.",
      forAdministrator: "The tool's login limit per client address was reached (lti.loginLimit in docs/lti.md). Raise it if a whole school shares one address and launches at once before any of it has launched; an address that completed a launch within the hour is never refused." });
  };
  return async (req: Request, res: Response): Promise<void> => {
    const source = (req.method === "POST" ? req.body : req.query) as Record<string, unknown> | undefined;
    const params: Record<string, string> = {};
    for (const name of [...REQUIRED, ...OPTIONAL]) {
      const v = source?.[name];
      if (isText(v, 4096)) params[name] = v;
    }
    // Canvas sends the deployment as `deployment_id` (canvas-lms#2201): the same parameter.
    const canvasDeployment = source?.deployment_id;
    if (params.lti_deployment_id === undefined && isText(canvasDeployment, 4096)) params.lti_deployment_id = canvasDeployment;
    const missing = REQUIRED.filter((n) => params[n] === undefined);
    if (missing.length > 0) {
      return refuse(res, logger, frameAncestors, { status: 400, check: "login_parameters", detail: { missing },
        title: "This launch could not start",
        forAdministrator: `The LMS's login request lacks ${missing.join(", ")}. Check that the tool's login URL is configured as its OIDC login (initiation) URL.` });
    }
    const ip = req.ip ?? "unknown";
    const byAddress = await options.limits.address(ip);
    if (!byAddress.allowed) return tooMany(res, byAddress);
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
    if (params.lti_deployment_id !== undefined && params.lti_deployment_id.length > MAX_DEPLOYMENT_ID) {
      return refuse(res, logger, frameAncestors, { status: 400, check: "login_parameters", detail: { tooLong: "lti_deployment_id" },
        title: "This launch could not start",
        forAdministrator: `The LMS's login sent a deployment id longer than ${MAX_DEPLOYMENT_ID} characters, which LTI 1.3 does not allow.` });
    }
    await options.limits.count(ip);
    const id = randomId(24);
    const nonce = randomId(24);
    const offered = params.lti_storage_target;
    const storageTarget = offered !== undefined && offered.length <= MAX_STORAGE_TARGET ? offered : undefined;
    // Only a login without Platform Storage can fall back to a new window: only it carries what that needs.
    const relogin = storageTarget === undefined ? reloginToCarry({ loginHint: params.login_hint!, messageHint: params.lti_message_hint }) : undefined;
    const browserId = useBrowserId(req, res, options.cookieMaxAgeMs);
    const state = await states.seal({ id, nonce, issuer: registration.issuer, clientId: registration.clientId, deploymentId: params.lti_deployment_id, browserHash: shortHash(browserId), storageTarget, relogin });

    const auth = new URL(registration.authorizationUrl);
    const query: Record<string, string> = {
      scope: "openid", response_type: "id_token", response_mode: "form_post", prompt: "none",
      client_id: registration.clientId, redirect_uri: launchUrl(req, settings.toolUrl), login_hint: params.login_hint!, state, nonce,
    };
    if (params.lti_message_hint !== undefined) query.lti_message_hint = params.lti_message_hint;
    for (const [k, v] of Object.entries(query)) auth.searchParams.set(k, v);

    logger.debug({ event: "lti_login", iss: registration.issuer, clientId: registration.clientId, storage: storageTarget !== undefined }, "LTI login");
    if (storageTarget === undefined) {
      ltiHeaders(res);
      res.redirect(302, auth.href);
      return;
    }
    // Platform Storage first, then on to the LMS: the launch may come back without the cookie.
    const cfg = { target: storageTarget, origin: auth.origin, subject: "lti.put_data", key: storageKey(id), value: browserId, timeoutMs: 3000 };
    sendLtiPage(res, frameAncestors, {
      status: 200, title: "Opening…", message: "Connecting to your LMS…",
      body: `<script type="application/json" id="lti-storage">${scriptJson(cfg)}</script><p><a id="next" href="${escapeHtml(auth.href)}">Continue</a></p>`,
      // Whether or not the LMS stored it, go on: the cookie may still carry the state.
      script: storageScript(`location.replace(document.getElementById("next").href);`),
    });
  };
}
