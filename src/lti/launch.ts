/**
 * `POST /lti/launch`: the LMS's `id_token` and `state` (form post). In order: the state
 * (single use, from any instance), its binding to this browser (the login's cookie, else
 * Platform Storage read back in the LMS's frame, else a page offering a new window), the
 * token (verify-launch.ts), then what the launch is for: a learner's resource link opens
 * the exam through a single-use link (open-link.ts); an instructor gets a page naming the
 * exam (instructor-page.ts), or, for a deep-linking request, the exam picker
 * (deep-linking.ts). Every refusal is a page for the LMS administrator and a log line; nothing before
 * the link is followed calls the platform.
 */
import type { Request, Response } from "express";
import type { Logger } from "../core/logger.js";
import { randomId } from "../core/random-id.js";
import type { SingleUseStore } from "../fleet/single-use.js";
import type { LtiCatalog } from "./catalog.js";
import { CLAIM, isInstructorRole } from "./claims.js";
import type { deepLinking } from "./deep-linking.js";
import { instructorPage } from "./instructor-page.js";
import type { LoginState, LoginStates } from "./login-state.js";
import { stateCookie } from "./login.js";
import { linkPath, putLink, type LinkKind } from "./open-link.js";
import { escapeHtml, jsonBlock, ltiHeaders, sendLtiPage, useFrameAncestors } from "./pages.js";
import { originsOf } from "./registrations.js";
import { storageKey, storageScript } from "./platform-storage.js";
import { refuse } from "./refusal.js";
import type { RemoteKeySets } from "./remote-keys.js";
import type { RegistrationSource } from "./registration-source.js";
import type { LtiSettings } from "./settings.js";
import { studentFromClaims } from "./student.js";
import { launchUrl } from "./tool-url.js";
import { verifyLaunch, type VerifiedLaunch } from "./verify-launch.js";

export interface LaunchRouteDeps {
  states: LoginStates;
  source: RegistrationSource;
  links: SingleUseStore;
  keySets: RemoteKeySets;
  logger: Logger;
  frameAncestors: readonly string[];
  /** An exam id the router's launch would accept (its id pattern). */
  examIdPattern: RegExp;
  catalog: LtiCatalog;
  deepLinking: ReturnType<typeof deepLinking>;
}

const field = (body: unknown, name: string): string | undefined => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === "string" && v.length > 0 && v.length <= 16_384 ? v : undefined;
};

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export function launchRoute(settings: LtiSettings, deps: LaunchRouteDeps) {
  const { states, logger, frameAncestors } = deps;
  const refuseWith = (res: Response, check: string, forAdministrator: string, status = 400, detail?: Record<string, unknown>) =>
    refuse(res, logger, frameAncestors, { status, check, title: "This launch could not be accepted", forAdministrator, detail });

  /** The state, taken once it is proven to be this browser's; undefined when a page was answered instead. */
  async function boundState(req: Request, res: Response, state: string, idToken: string): Promise<LoginState | undefined> {
    const known = await states.peek(state);
    if (!known) {
      refuseWith(res, "state", "The launch's state is unknown, used or expired: the launch must follow this tool's login within the state's lifetime, once. Ask the learner to open the link again.");
      return undefined;
    }
    const cookie = cookieOf(req, stateCookie(state));
    const continuation = field(req.body, "continuation");
    if (cookie === known.browserSecret) return takeOnce(res, state);
    if (continuation !== undefined) {
      const expected = await states.takeContinuation(state);
      if (expected === continuation && field(req.body, "platform_value") === known.browserSecret) return takeOnce(res, state);
      refuseWith(res, "state_binding", "The launch's state was not found in this browser (no cookie, and the LMS's Platform Storage did not hold it): the launch did not come from the browser that logged in.", 401);
      return undefined;
    }
    const target = known.storageTarget ?? field(req.body, "lti_storage_target");
    if (target !== undefined) {
      // Read the state back from the LMS's Platform Storage, in this browser, then post again.
      const secret = randomId(24);
      logger.debug({ event: "lti_platform_storage_check" }, "LTI launch without its state cookie: reading the state from Platform Storage");
      await states.putContinuation(state, secret);
      const lookup = await deps.source.find(known.issuer, known.clientId);
      const origin = "found" in lookup ? new URL(lookup.found.authorizationUrl).origin : "null";
      if ("found" in lookup) useFrameAncestors(res, originsOf(lookup.found));
      const cfg = { target, origin, subject: "lti.get_data", key: storageKey(state), timeoutMs: 3000 };
      const hidden = { id_token: idToken, state, continuation: secret };
      const inputs = Object.entries(hidden).map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`).join("");
      sendLtiPage(res, frameAncestors, {
        status: 200, title: "Opening…", message: "Checking your launch with your LMS…",
        body: `<script type="application/json" id="lti-storage">${jsonBlock(cfg)}</script><form id="go" method="post" action="${escapeHtml(launchUrl(req, settings.toolUrl))}">${inputs}<input type="hidden" name="platform_value" value=""></form>`,
        script: storageScript(`var f=document.getElementById("go");f.platform_value.value=typeof answer==="string"?answer:"";f.submit();`),
      });
      return undefined;
    }
    // No cookie and no Platform Storage: start over at the top level, where the cookie travels.
    const again = new URLSearchParams(known.login);
    logger.info({ event: "lti_state_cookie_missing" }, "LTI launch without its state cookie: offered a new window");
    sendLtiPage(res, frameAncestors, {
      status: 401, title: "Open this in a new window", message: "Your browser kept this tool from remembering the launch inside the LMS page. Open it in a new window to continue.",
      body: `<p><a href="${escapeHtml(`${req.baseUrl}/lti/login?${again}`)}" target="_blank" rel="noopener noreferrer">Open in a new window</a></p>`,
    });
    return undefined;
  }

  async function takeOnce(res: Response, state: string): Promise<LoginState | undefined> {
    const taken = await states.take(state);
    if (!taken) refuseWith(res, "state", "The launch's state was already used (a replayed launch).");
    return taken;
  }

  async function learner(req: Request, res: Response, launch: VerifiedLaunch): Promise<void> {
    const custom = (launch.claims[CLAIM.custom] ?? {}) as Record<string, unknown>;
    const [kind, examId]: [LinkKind, unknown] = custom.roleplay_id !== undefined ? ["roleplay", custom.roleplay_id] : ["oral", custom.exam_id];
    if (typeof examId !== "string" || !deps.examIdPattern.test(examId)) {
      return refuseWith(res, "custom_exam_id", "This link names no exam: give the resource link the custom parameter exam_id=<exam id> (or roleplay_id), or place it with Deep Linking.", 400, { resourceLink: (launch.claims[CLAIM.resourceLink] as { id?: string })?.id });
    }
    const student = (settings.student ?? studentFromClaims)(launch.claims) ?? {};
    if (!student.email) {
      return refuse(res, logger, frameAncestors, {
        status: 400, check: "email_missing", title: "Your LMS did not share your e-mail address",
        message: "The exam service needs your e-mail address to sign you in, and your LMS did not send it. Please tell your LMS administrator.",
        forAdministrator: "Launches must include the user's email. In Canvas, set the developer key's Privacy Level to \"Public\" (or \"Email Only\" with names); in other LMSs, allow the tool to receive the user's name and e-mail.",
      });
    }
    const deploymentOrg = launch.registration.deployments.get(launch.deploymentId);
    const organization = await settings.organizationFor(deploymentOrg, req);
    if (organization === null) return refuseWith(res, "organization", `Deployment ${launch.deploymentId} names organization "${deploymentOrg}", which this app does not know.`);
    const linkId = randomId(24);
    await putLink(deps.links, linkId, { kind, examId, student, organization });
    const href = linkPath(req.baseUrl, kind, examId, linkId);
    const presentation = launch.claims[CLAIM.launchPresentation] as { document_target?: unknown } | undefined;
    logger.info({ event: "lti_launch", outcome: "learner", examId, kind, deploymentId: launch.deploymentId }, "LTI learner launch");
    if (presentation?.document_target === "window" || settings.framedLaunch === "frame") {
      ltiHeaders(res);
      res.redirect(303, href);
      return;
    }
    sendLtiPage(res, frameAncestors, {
      status: 200, title: "Your oral exam is ready", message: "The exam opens in a new window, where it can use your microphone.",
      body: `<p><a id="open" class="button" href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">Open the exam</a></p>`,
    });
  }

  return async (req: Request, res: Response): Promise<void> => {
    const idToken = field(req.body, "id_token");
    const state = field(req.body, "state");
    if (!idToken || !state) return refuseWith(res, idToken ? "state" : "id_token", "The LMS posted no id_token or state to the tool's redirect URL.");
    const known = await boundState(req, res, state, idToken);
    if (!known) return;
    const found = await deps.source.find(known.issuer, known.clientId);
    if (!("found" in found)) return refuseWith(res, "registration", "The registration this login was made for is gone.");
    useFrameAncestors(res, originsOf(found.found));
    if (!found.found.active) return refuseWith(res, "registration_inactive", "The tool's registration for this LMS was deactivated after the login.", 403);
    const own = launchUrl(req, settings.toolUrl);
    const verify = (registration: typeof found.found) => verifyLaunch({
      idToken, state: known, registration, keySets: deps.keySets,
      clockToleranceSec: settings.clockToleranceSec, maxAgeSec: settings.stateTtlSec,
      ownTargets: (uri) => uri === own || uri.startsWith(`${own}?`),
    });
    let result = await verify(found.found);
    if ("failed" in result && result.failed.check === "deployment_id" && found.found.source === "store") {
      // A deployment the administrator added since the store was last read: read it again, once.
      const again = await deps.source.reread(known.issuer, known.clientId);
      if ("found" in again && again.found !== found.found && again.found.active) result = await verify(again.found);
    }
    if ("failed" in result) return refuseWith(res, result.failed.check, result.failed.forAdministrator, result.failed.status, { iss: known.issuer, clientId: known.clientId });
    const { launch } = result;
    if (!launch.registration.deployments.has(launch.deploymentId)) await deps.source.recordDeployment(launch.registration, launch.deploymentId);
    if (launch.messageType === "LtiDeepLinkingRequest") return deps.deepLinking.picker(req, res, launch);
    if (isInstructorRole(launch.roles)) return instructorPage(req, res, launch, { settings, catalog: deps.catalog, logger, frameAncestors });
    return learner(req, res, launch);
  };
}
