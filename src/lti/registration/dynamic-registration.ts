/**
 * `GET /lti/register`: LTI Dynamic Registration 1.0. The LMS opens it (Canvas: in a
 * frame) with `openid_configuration` and `registration_token`; the tool reads the LMS's
 * configuration (Bearer token), checks it (tool-configuration.ts), posts its registration
 * to the LMS's registration endpoint, stores the answer (issuer, client id, endpoints) and
 * answers a page that tells the LMS to close the frame.
 *
 * The URL is public, so: off unless `lti.dynamicRegistration` is given; only the URL the
 * LMS gave is fetched (https; http on loopback only with `allowLoopbackHttp`; `allowedHosts`
 * when set), and only its origin gets the POST; no redirect is followed; each request has
 * a time limit and at most 64 KiB is read; nothing the LMS answered is shown on the page,
 * and a configuration that cannot be read or used gets one page and status whatever the
 * reason (refused, timed out, not JSON, an HTTP error, an invalid configuration), so the
 * page is no port scanner; the reason is in the log. A stored registration is inactive
 * (launches refused) until the tool's administrator activates it, unless `autoActivate`;
 * it never replaces an active one (409), ids with control characters are refused, and at
 * most `maxPending` per LMS host name (whatever the port) wait
 * (registration-slot.ts). Every failure is a page, a log line `lti_register_refused`, and nothing stored.
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import { textOf } from "../../core/text.js";
import { hasControlCharacters } from "../../core/control-characters.js";
import type { OralStoreLti } from "../../store/lti-types.js";
import { hostAllowed } from "../options/dynamic-registration-settings.js";
import { fetchLmsJson, type LmsAnswer } from "../shared/lms-fetch.js";
import { isLmsUrl } from "../shared/lms-url.js";
import { escapeHtml } from "../../core/html.js";
import { sendLtiPage } from "../shared/pages.js";
import type { RegistrationSource } from "../lms/registration-source.js";
import { pendingOn, storeRegistration } from "./registration-slot.js";
import { warnRefusal } from "../shared/refusal.js";
import type { LtiSettings } from "../settings/settings.js";
import { readPlatformConfiguration, toolRegistration, toolScopes, TOOL_CONFIGURATION } from "./tool-configuration.js";
import { toolBase } from "../shared/tool-url.js";

/**
 * The LMS's frame origin is not known before it registers (Canvas frames this page from
 * the school's host), and the page has nothing to click: any https (or loopback) page may frame it.
 */
const REGISTER_FRAME_ANCESTORS = ["https:", "http://localhost:*", "http://127.0.0.1:*"];

export function registerRoute(settings: LtiSettings, deps: { source: RegistrationSource; store: OralStoreLti; logger: Logger }) {
  const dr = settings.dynamicRegistration;
  const { logger } = deps;
  const refuse = (res: Response, status: number, check: string, forAdministrator: string, detail: Record<string, unknown> = {}) => {
    warnRefusal(logger, { event: "lti_register_refused", check, status, ...detail }, `LTI Dynamic Registration refused: ${check}`);
    sendLtiPage(res, REGISTER_FRAME_ANCESTORS, {
      status, title: "The tool could not be registered", message: "Nothing was registered. Tell the tool's administrator what is written below.",
      forAdministrator,
    });
  };
  const failed = (answer: Exclude<LmsAnswer, { ok: true }>) =>
    ({ unreachable: "could not be reached", timeout: `did not answer within ${dr.timeoutMs} ms`, redirect: "answered a redirect (not followed)",
      too_large: "answered more than 64 KiB", not_json: "did not answer JSON", status: `answered HTTP ${answer.status}` })[answer.why];
  // One page for every configuration that cannot be read or used: the reason only in the log.
  const unreadable = (res: Response, check: string, url: URL, detail: Record<string, unknown>) => refuse(res, 502, check,
    `The LMS's OpenID configuration at ${url.origin}${url.pathname} could not be read or used (the tool's log says why, event lti_register_refused). Check the registration token has not expired, and start again.`,
    { host: url.host, ...detail });

  return async (req: Request, res: Response): Promise<void> => {
    if (!dr.enabled) return refuse(res, 404, "disabled", "Dynamic Registration is off in this tool: register it by hand (docs/lti.md), or ask its administrator to set lti.dynamicRegistration.");
    const configurationUrl = textOf(req.query.openid_configuration, 2048);
    const token = textOf(req.query.registration_token, 8192);
    if (configurationUrl === undefined || !isLmsUrl(configurationUrl, dr.allowLoopbackHttp)) {
      return refuse(res, 400, "openid_configuration", "The registration URL must be opened by the LMS with openid_configuration=<an https URL> (and registration_token).");
    }
    const url = new URL(configurationUrl);
    const where = { host: url.host };
    if (!hostAllowed(url.hostname, dr.allowedHosts)) {
      return refuse(res, 403, "host_not_allowed", `This tool accepts registrations only from ${dr.allowedHosts!.join(", ")}; ${url.hostname} is not one of them.`, where);
    }
    // Counted per host name, whatever the port: one LMS host answering on several ports is one LMS.
    const full = () => refuse(res, 503, "too_many_pending", `${dr.maxPending} registrations from ${url.hostname} already wait for activation: the tool's administrator must activate or delete them first.`, where);
    // A cheap check before asking the LMS anything; the count that holds is storeRegistration's.
    if (!dr.autoActivate && (await pendingOn(deps.store, url.hostname)) >= dr.maxPending) return full();
    const configAnswer = await fetchLmsJson(configurationUrl, { method: "GET", token, timeoutMs: dr.timeoutMs });
    if (!configAnswer.ok) {
      return unreadable(res, "openid_configuration_unreachable", url, { why: configAnswer.why, lmsStatus: configAnswer.status, reason: failed(configAnswer) });
    }
    const read = readPlatformConfiguration(configAnswer.json, url);
    if ("problem" in read) return unreadable(res, read.problem, url, { reason: read.forAdministrator });
    const config = read.config;
    const notHttps = dr.allowLoopbackHttp ? [] : [config.issuer, config.authorizationUrl, config.jwksUrl, config.registrationEndpoint, config.tokenUrl]
      .filter((u) => u !== undefined && !isLmsUrl(u, false));
    if (notHttps.length > 0) return unreadable(res, "openid_configuration_invalid", url, { reason: "an endpoint is not https (allowLoopbackHttp is off)" });
    const base = toolBase(req, settings.toolUrl);
    const answer = await fetchLmsJson(config.registrationEndpoint, { method: "POST", token, body: toolRegistration(base, dr.toolName, config, toolScopes(settings)), timeoutMs: dr.timeoutMs });
    if (!answer.ok) {
      const error = textOf((answer.json as { error?: unknown } | undefined)?.error, 100);
      return refuse(res, 502, "registration_refused", `The LMS's registration endpoint ${failed(answer)}: it did not accept the tool's registration.`, { ...where, why: answer.why, lmsStatus: answer.status, error });
    }
    const registered = (answer.json ?? {}) as Record<string, unknown>;
    const clientId = textOf(registered.client_id, 255);
    if (clientId === undefined) return refuse(res, 502, "registration_answer", "The LMS's registration answer has no client_id.", where);
    const issuer = config.issuer;
    const deploymentId = textOf((registered[TOOL_CONFIGURATION] as Record<string, unknown> | undefined)?.deployment_id, 255);
    // Ids an operator reads (lti list, logs, pages): control characters could make them show something else.
    const controlled = ([["client_id", clientId], ["issuer", issuer], ["deployment_id", deploymentId]] as const).filter(([, v]) => v !== undefined && hasControlCharacters(v)).map(([k]) => k);
    if (controlled.length > 0) {
      return refuse(res, 502, "registration_answer", `The LMS's ${controlled.join(", ")} contains control characters, which no id may: nothing was stored.`, { ...where, fields: controlled });
    }
    if (settings.registrations.all().some((r) => r.issuer === issuer && r.clientId === clientId)) {
      return refuse(res, 409, "registration_in_options", `Issuer ${issuer} with client id ${clientId} is already in the tool's lti.registrations option, which wins over a stored registration.`, { iss: issuer, clientId });
    }
    const stored = await storeRegistration(deps.store, {
      issuer, clientId, authorizationUrl: config.authorizationUrl, jwksUrl: config.jwksUrl, tokenUrl: config.tokenUrl,
      active: dr.autoActivate, acceptNewDeployments: dr.acceptNewDeployments, organization: dr.organization,
      data: { via: "dynamic_registration", openidConfiguration: `${url.origin}${url.pathname}`, productFamilyCode: config.productFamilyCode, version: config.version, scope: textOf(registered.scope, 2048) },
      createdAt: new Date().toISOString(),
    }, url.hostname, dr.maxPending);
    if (stored === "active_exists") {
      return refuse(res, 409, "registration_active", `Issuer ${issuer} with client id ${clientId} is already registered and active; it was left as it is. Delete it first (express-oral-assessments lti delete) to register it again.`, { iss: issuer, clientId });
    }
    if (stored === "too_many_pending") return full();
    if (deploymentId !== undefined) await deps.store.putLtiDeployment(issuer, clientId, dr.organization === undefined ? { id: deploymentId } : { id: deploymentId, organization: dr.organization });
    deps.source.invalidate();
    logger.info({ event: "lti_registered", iss: issuer, clientId, active: dr.autoActivate, organization: dr.organization, deploymentId }, "LTI Dynamic Registration stored a registration");
    const next = dr.autoActivate
      ? "Launches from your LMS work now."
      : `Launches wait until the tool's administrator activates issuer ${issuer}, client id ${clientId}.`;
    sendLtiPage(res, REGISTER_FRAME_ANCESTORS, {
      status: 200, title: "The tool is registered", message: `Registered with your LMS as client id ${clientId}. ${next}`,
      body: `<p><button id="close" type="button">Close</button></p><p hidden id="issuer">${escapeHtml(issuer)}</p>`,
      // The spec's close message: the LMS closes its registration frame (or window).
      script: `function done(){(window.opener||window.parent).postMessage({subject:"org.imsglobal.lti.close"},"*");}document.getElementById("close").onclick=done;done();`,
    });
  };
}
