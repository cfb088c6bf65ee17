/**
 * `POST /lti/launch`: the LMS's `id_token` and `state` (form post). In order: the state
 * (sealed by the login, opened by any instance), its binding to this browser (the login's cookie, else
 * Platform Storage read back in the LMS's frame, else a page offering a new window), the
 * token (verify-launch.ts), then what the launch is for: a learner's resource link opens
 * the exam through a single-use link (open-link.ts); an instructor gets a page naming the
 * exam (instructor-page.ts), or, for a deep-linking request, the exam picker
 * (deep-linking.ts). The state is used once: its nonce is recorded as used once the token
 * verified, so a replayed launch is refused. Every refusal is a page for the LMS administrator and a log line; nothing before
 * the link is followed calls the platform.
 */
import type { Request, Response } from "express";
import type { Logger } from "../core/logger.js";
import { randomId } from "../core/random-id.js";
import type { SingleUseStore } from "../fleet/single-use.js";
import type { LtiCatalog } from "./placement/catalog.js";
import { isInstructorRole } from "./shared/claims.js";
import type { CourseBinding } from "./placement/course-binding.js";
import type { deepLinking } from "./placement/deep-linking.js";
import { instructorPage } from "./placement/instructor-page.js";
import { browserIdOf, shortHash } from "./shared/browser-id.js";
import type { LoginLimits } from "./options/login-limit.js";
import type { LoginState, LoginStates } from "./launch/login-state.js";
import { gradebookOfLaunch } from "./launch/launch-gradebook.js";
import { linkPath, putLink } from "./launch/open-link.js";
import { escapeHtml, scriptJson } from "../core/html.js";
import { textOf } from "../core/text.js";
import { ltiHeaders, sendLtiPage, useFrameAncestors } from "./shared/pages.js";
import { originsOf } from "./lms/registrations.js";
import { forgetAfterwards, storageKey, storageScript, type StorageSpot } from "./shared/platform-storage.js";
import { refuse } from "./shared/refusal.js";
import type { RemoteKeySets } from "./lms/remote-keys.js";
import type { RegistrationSource } from "./lms/registration-source.js";
import type { LtiSettings } from "./settings/settings.js";
import { studentOfLaunch } from "./launch/launch-student.js";
import { consumesMessageHint } from "./launch/single-use-hint.js";
import { submissionReview } from "./placement/submission-review.js";
import type { OralStoreLaunches } from "../store/launch-types.js";
import type { OralStoreLti } from "../store/lti-types.js";
import type { PlatformNotices } from "./services/notices.js";
import { launchUrl } from "./shared/tool-url.js";
import { verifyLaunch, type VerifiedLaunch } from "./launch/verify-launch.js";

export interface LaunchRouteDeps {
  states: LoginStates;
  /** The login's limit: an address whose launch the LMS signed is not refused a login for a while. */
  limits: LoginLimits;
  source: RegistrationSource;
  links: SingleUseStore;
  keySets: RemoteKeySets;
  logger: Logger;
  frameAncestors: readonly string[];
  catalog: LtiCatalog;
  deepLinking: ReturnType<typeof deepLinking>;
  /** Course binding: the learner's check, the instructor's links (course-binding.ts). */
  courseBinding: CourseBinding;
  /** The router's store (course links, gradebook entries) and launch records: Submission Review's learner record. */
  store: OralStoreLti;
  launchRecords: OralStoreLaunches | undefined;
  /** The Platform Notification Service: the copy-notice handler registered where a launch offers it (notices.ts). */
  notices?: PlatformNotices;
}

/** The longest id_token read (a link with many custom parameters makes 20+ KB tokens). */
export const MAX_ID_TOKEN = 65_536;

const field = (body: unknown, name: string): string | undefined => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return textOf(v, 16_384);
};

/**
 * Whether a post came from this tool's own page (the Platform Storage check page posts
 * its continuation same-origin): `Sec-Fetch-Site`, which a page cannot set, says so in
 * every current browser. Without it (an old browser), an `Origin` naming another site is
 * refused; none, or `null` (our pages' `no-referrer` policy), is let through.
 */
function sameOriginPost(req: Request, own: string): boolean {
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string") return site === "same-origin";
  const origin = req.headers.origin;
  return origin === undefined || origin === "null" || origin === own;
}

export function launchRoute(settings: LtiSettings, deps: LaunchRouteDeps) {
  const { states, logger, frameAncestors } = deps;
  const refuseWith = (res: Response, check: string, forAdministrator: string, status = 400, detail?: Record<string, unknown>) =>
    refuse(res, logger, frameAncestors, { status, check, title: "This launch could not be accepted", forAdministrator, detail });

  /**
   * The state, once it is proven to be this browser's; undefined when a page was
   * answered instead. Proof: the browser's cookie (browser-id.ts) hashes to the state's
   * browser hash; else, only when the login offered Platform Storage, the value read back
   * from it in this browser by a check page, posted back same-origin with the page's
   * one-time continuation; else a page offering a new window.
   */
  async function boundState(req: Request, res: Response, state: string, idToken: string): Promise<LoginState | undefined> {
    const known = await states.open(state);
    if (!known) {
      refuseWith(res, "state", "The launch's state is unknown, used or expired: the launch must follow this tool's login within the state's lifetime, once. Ask the learner to open the link again.");
      return undefined;
    }
    const browserId = browserIdOf(req);
    const spot = async (): Promise<StorageSpot | undefined> => {
      if (known.storageTarget === undefined) return undefined;
      const lookup = await deps.source.find(known.issuer, known.clientId);
      return { target: known.storageTarget, origin: "found" in lookup ? new URL(lookup.found.authorizationUrl).origin : "null", key: storageKey(known.id) };
    };
    if (browserId !== undefined && shortHash(browserId) === known.browserHash) {
      // The cookie came back: the value the login put in Platform Storage is not needed.
      const where = await spot();
      if (where) forgetAfterwards(res, where);
      return known;
    }
    const continuation = field(req.body, "continuation");
    if (browserId !== undefined && known.storageTarget === undefined) {
      // This browser has an id, and it is not the login's: the launch came from another
      // browser than the one that logged in (login CSRF), or two first logins raced in one
      // browser; opening the link again from the LMS works in the second case.
      refuseWith(res, "state_cookie_mismatch", "The launch's browser cookie holds another value than this login set: the launch did not come from the browser that logged in. Ask the learner to open the link again from the LMS.", 401);
      return undefined;
    }
    if (continuation !== undefined) {
      // Only a continuation of this login's own Platform Storage check, posted by that page (same origin), in this browser.
      const expected = known.storageTarget !== undefined && sameOriginPost(req, new URL(launchUrl(req, settings.toolUrl)).origin) ? await states.takeContinuation(known.id) : undefined;
      const value = field(req.body, "platform_value");
      if (expected !== undefined && expected === continuation && value !== undefined && shortHash(value) === known.browserHash) return known;
      refuseWith(res, "state_binding", "The launch's state was not found in this browser (no cookie, and the LMS's Platform Storage did not hold it): the launch did not come from the browser that logged in.", 401);
      return undefined;
    }
    const where = await spot();
    if (where !== undefined) {
      // Read the state back from the LMS's Platform Storage, in this browser, remove it there, then post again.
      const secret = randomId(24);
      logger.debug({ event: "lti_platform_storage_check" }, "LTI launch without its state cookie: reading the state from Platform Storage");
      await states.putContinuation(known.id, secret);
      const lookup = await deps.source.find(known.issuer, known.clientId);
      if ("found" in lookup) useFrameAncestors(res, originsOf(lookup.found));
      const cfg = { ...where, subject: "lti.get_data", timeoutMs: 3000 };
      const hidden = { id_token: idToken, state, continuation: secret };
      const inputs = Object.entries(hidden).map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`).join("");
      sendLtiPage(res, frameAncestors, {
        status: 200, title: "Opening…", message: "Checking your launch with your LMS…",
        body: `<script type="application/json" id="lti-storage">${scriptJson(cfg)}</script><form id="go" method="post" action="${escapeHtml(launchUrl(req, settings.toolUrl))}">${inputs}<input type="hidden" name="platform_value" value=""></form>`,
        script: storageScript(`forget();var f=document.getElementById("go");f.platform_value.value=typeof answer==="string"?answer:"";f.submit();`),
      });
      return undefined;
    }
    // No cookie and no Platform Storage: start over at the top level, where the cookie travels.
    // An LMS whose hint works once (Moodle, Canvas) would refuse the replayed login: ask for the activity again instead.
    const singleUse = consumesMessageHint(known.issuer, idToken);
    const relogin = singleUse ? undefined : known.relogin;
    logger.info({ event: "lti_state_cookie_missing", relogin: relogin !== undefined, singleUseHint: singleUse }, "LTI launch without its state cookie: offered a new window");
    const again = relogin && new URLSearchParams({
      iss: known.issuer, client_id: known.clientId, login_hint: relogin.loginHint, target_link_uri: launchUrl(req, settings.toolUrl),
      ...(relogin.messageHint !== undefined ? { lti_message_hint: relogin.messageHint } : {}),
      ...(known.deploymentId !== undefined ? { lti_deployment_id: known.deploymentId } : {}),
    });
    sendLtiPage(res, frameAncestors, {
      status: 401, title: "Open this in a new window",
      message: again
        ? "Your browser kept this tool from remembering the launch inside the LMS page. Open it in a new window to continue."
        : singleUse
          ? "Your browser kept this tool from remembering the launch inside the LMS page, and this link cannot be reused. Go back to your course and open the activity again in a new window (or a new tab): right-click it and choose to open it in a new window."
          : "Your browser kept this tool from remembering the launch inside the LMS page. Open the link from your course in a new window (or a new tab) to continue.",
      body: again ? `<p><a href="${escapeHtml(`${req.baseUrl}/lti/login?${again}`)}" target="_blank" rel="noopener noreferrer">Open in a new window</a></p>` : undefined,
    });
    return undefined;
  }

  async function learner(req: Request, res: Response, verified: VerifiedLaunch): Promise<void> {
    // Course binding names the exam (the one reading of the link, typed-launch.ts) or answers a page.
    const launch = await deps.courseBinding.check(req, res, verified);
    if (!launch) return;
    const { kind, id: examId } = launch.exam;
    const deploymentOrg = launch.registration.deployments.get(launch.deploymentId);
    const organization = await settings.organizationFor(deploymentOrg, req);
    if (organization === null) return refuseWith(res, "organization", `Deployment ${launch.deploymentId} names organization "${deploymentOrg}", which this app does not know.`);
    const student = await studentOfLaunch(settings, launch, organization, logger);
    if ("refusal" in student) return refuse(res, logger, frameAncestors, student.refusal);
    const linkId = randomId(24);
    const gradebook = settings.gradebook ? gradebookOfLaunch(launch, settings.allowLoopbackHttp) : undefined;
    await putLink(deps.links, linkId, { kind, examId, student: student.student, organization, claims: launch.kept, ...(gradebook ? { gradebook } : {}) });
    const href = linkPath(req.baseUrl, kind, examId, linkId);
    logger.info({ event: "lti_launch", outcome: "learner", examId, kind, deploymentId: launch.deploymentId }, "LTI learner launch");
    if (launch.documentTarget === "window" || settings.framedLaunch === "frame") {
      ltiHeaders(res);
      res.redirect(303, href);
      return;
    }
    sendLtiPage(res, frameAncestors, {
      status: 200, title: "Your oral exam is ready", message: "The exam opens in a new window, where it can use your microphone.",
      // Who will be signed in, before the click: a learner sent here by someone else's
      // launch (login CSRF) sees a name that is not theirs, and can stop.
      body: `<p id="who">You will be signed in as <strong>${escapeHtml(`${student.student.firstName ?? ""} ${student.student.lastName ?? ""}`.trim())}</strong> (${escapeHtml(student.student.email ?? "")}). Not you? Close this page and open the exam from your own LMS account.</p>`
        + `<p><a id="open" class="button" href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">Open the exam</a></p>`,
    });
  }

  return async (req: Request, res: Response): Promise<void> => {
    const posted = (req.body as Record<string, unknown> | undefined)?.id_token;
    if (typeof posted === "string" && posted.length > MAX_ID_TOKEN) {
      return refuseWith(res, "id_token_too_large", `The LMS posted an id_token of ${posted.length} characters; this tool reads at most ${MAX_ID_TOKEN}. Shorten the link's custom parameters.`, 413);
    }
    const idToken = textOf(posted);
    const state = field(req.body, "state");
    if (!idToken || !state) return refuseWith(res, idToken ? "state" : "id_token", `The LMS posted no ${idToken ? "state" : "id_token"} to the tool's redirect URL.`);
    const known = await boundState(req, res, state, idToken);
    if (!known) return;
    const found = await deps.source.find(known.issuer, known.clientId);
    if (!("found" in found)) return refuseWith(res, "registration", "The registration this login was made for is gone.");
    useFrameAncestors(res, originsOf(found.found));
    if (!found.found.active) return refuseWith(res, "registration_inactive", "The tool's registration for this LMS was deactivated after the login.", 403);
    const own = launchUrl(req, settings.toolUrl);
    const verify = (registration: typeof found.found) => verifyLaunch({
      idToken, state: known, registration, keySets: deps.keySets,
      clockToleranceSec: settings.clockToleranceMs / 1000, maxAgeSec: settings.stateTtlMs / 1000,
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
    // Used once: the nonce, proven by the LMS's signature, is recorded; a replay finds it.
    if (!(await states.use(known))) return refuseWith(res, "state", "The launch's state was already used (a replayed launch).");
    await deps.limits.launched(req.ip ?? "unknown");
    if (!launch.registration.deployments.has(launch.deploymentId)) await deps.source.recordDeployment(launch.registration, launch.deploymentId);
    deps.notices?.ensureHandler(req, launch);
    if (launch.messageType === "LtiDeepLinkingRequest") return deps.deepLinking.picker(req, res, launch);
    if (launch.messageType === "LtiSubmissionReviewRequest") {
      return submissionReview(req, res, launch, { settings, catalog: deps.catalog, store: deps.store, launches: deps.launchRecords, logger, frameAncestors });
    }
    if (isInstructorRole(launch.roles, settings.rolesWithoutContext)) return instructorPage(req, res, launch, { settings, catalog: deps.catalog, logger, frameAncestors, binding: deps.courseBinding, offers: deps.links });
    return learner(req, res, launch);
  };
}
