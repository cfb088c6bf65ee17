/**
 * Deep Linking 2.0: an instructor's `LtiDeepLinkingRequest` answers a picker of the
 * organization's exams and role-plays (the LMS course's linked class first); the choice,
 * `POST /lti/deep-link` with `examId` or `roleplayId`, answers a page that auto-posts the
 * signed `LtiDeepLinkingResponse` (field `JWT`) to the LMS's `deep_link_return_url`.
 *
 * The picker is bound to the launch that opened it by a random id in the page, kept in the
 * fleet's single-use store with what the response needs (registration, deployment, return
 * URL, `data`, organization): peeked while the choice is checked (a wrong choice may be
 * corrected), then taken, once.
 */
import type { Request, Response } from "express";
import type { Logger } from "../core/logger.js";
import { randomId } from "../core/random-id.js";
import type { SingleUseStore } from "../fleet/single-use.js";
import type { LtiCatalog } from "./catalog.js";
import { CLAIM, isInstructorRole } from "./claims.js";
import { CourseLinks } from "./course-links.js";
import { signDeepLinkResponse } from "./deep-link-response.js";
import { readDeepLinkSettings, type DeepLinkSettings } from "./deep-link-settings.js";
import { launchOrganization } from "./launch-organization.js";
import type { LinkKind } from "./open-link.js";
import { escapeHtml, sendLtiPage } from "./pages.js";
import { pickerBody } from "./picker-page.js";
import { refuse } from "./refusal.js";
import type { LtiSettings } from "./settings.js";
import { launchUrl, toolBase } from "./tool-url.js";
import type { VerifiedLaunch } from "./verify-launch.js";

interface Pick {
  issuer: string;
  clientId: string;
  deploymentId: string;
  org: string;
  contextId: string | undefined;
  settings: DeepLinkSettings;
}

const pickKey = (id: string) => `lti-pick:${id}`;
const ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface DeepLinkingDeps {
  settings: LtiSettings;
  catalog: LtiCatalog;
  store: SingleUseStore;
  logger: Logger;
  frameAncestors: readonly string[];
}

export function deepLinking(deps: DeepLinkingDeps) {
  const { settings, catalog, store, logger, frameAncestors } = deps;
  const courses = new CourseLinks(store);
  const refuseWith = (res: Response, status: number, check: string, forAdministrator: string, title = "Exams cannot be added here") =>
    refuse(res, logger, frameAncestors, { status, check, title, forAdministrator });

  /** `POST /lti/launch` with an `LtiDeepLinkingRequest`, verified. */
  async function picker(req: Request, res: Response, launch: VerifiedLaunch): Promise<void> {
    if (!isInstructorRole(launch.roles, settings.rolesWithoutContext)) {
      return refuse(res, logger, frameAncestors, { status: 403, check: "deep_linking_role", title: "Only instructors add exams", message: "Adding an exam to a course is for its instructors.", forAdministrator: "A deep-linking request came from a user without an instructor role." });
    }
    const read = readDeepLinkSettings(launch.claims);
    if ("refused" in read) return refuseWith(res, 400, read.refused.check, read.refused.forAdministrator);
    const org = await launchOrganization(req, res, launch, { settings, catalog, logger, frameAncestors });
    if (org === undefined) return;
    const contextId = (launch.claims[CLAIM.context] as { id?: unknown } | undefined)?.id;
    const context = typeof contextId === "string" && contextId.length <= 255 ? contextId : undefined;
    const [exams, linkedClass] = await Promise.all([
      catalog.list(org),
      context === undefined ? undefined : courses.classOf(org, launch.registration.issuer, context),
    ]);
    const ordered = linkedClass === undefined ? exams : [...exams.filter((e) => e.classId === linkedClass), ...exams.filter((e) => e.classId !== linkedClass)];
    const id = randomId(24);
    const pick: Pick = { issuer: launch.registration.issuer, clientId: launch.registration.clientId, deploymentId: launch.deploymentId, org, contextId: context, settings: read.settings };
    await store.put(pickKey(id), JSON.stringify(pick), settings.stateTtlSec * 1000);
    logger.info({ event: "lti_deep_linking", outcome: "picker", exams: ordered.length }, "LTI deep-linking picker");
    sendLtiPage(res, frameAncestors, {
      status: 200, title: "Add an oral exam",
      message: ordered.length > 0 ? "Choose the exam students will open from this link." : "Your school has no exam in this tool yet.",
      body: pickerBody({ action: `${toolBase(req, settings.toolUrl)}/lti/deep-link`, pick: id, exams: ordered, linkedClass, instructorApi: `${toolBase(req, settings.toolUrl)}/oral-assessments` }),
    });
  }

  /** `POST /lti/deep-link`: the picker's choice. */
  async function choose(req: Request, res: Response): Promise<void> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const id = typeof body.pick === "string" && ID.test(body.pick) ? body.pick : undefined;
    const text = id === undefined ? undefined : await store.peek(pickKey(id));
    if (id === undefined || text === undefined) return used(res);
    const pick = JSON.parse(text) as Pick;
    const [kind, examId]: [LinkKind, unknown] = body.roleplayId !== undefined ? ["roleplay", body.roleplayId] : ["oral", body.examId];
    const exam = typeof examId === "string" && ID.test(examId) ? await catalog.exam(pick.org, kind, examId) : undefined;
    if (!exam) {
      logger.info({ event: "lti_deep_linking", outcome: "unknown_exam", kind }, "LTI deep-linking choice names no exam of the organization");
      return sendLtiPage(res, frameAncestors, { status: 400, title: "Choose an exam", message: `Choose one of the listed exams (field ${kind === "roleplay" ? "roleplayId" : "examId"}). Go back and choose again.` });
    }
    if ((await store.take(pickKey(id))) === undefined) return used(res);
    if (pick.contextId !== undefined) await courses.remember(pick.org, pick.issuer, pick.contextId, exam.classId);
    const jwt = await signDeepLinkResponse({
      keys: settings.keys, issuer: pick.issuer, clientId: pick.clientId, deploymentId: pick.deploymentId,
      settings: pick.settings, exam, launchUrl: launchUrl(req, settings.toolUrl),
    });
    logger.info({ event: "lti_deep_linking", outcome: "placed", kind, examId: exam.id }, "LTI deep-linking response sent");
    sendLtiPage(res, frameAncestors, {
      status: 200, title: "Adding the exam…", message: `Adding “${exam.name}” to your course…`,
      formTargets: [new URL(pick.settings.returnUrl).origin],
      body: `<form id="return" method="post" action="${escapeHtml(pick.settings.returnUrl)}"><input type="hidden" name="JWT" value="${escapeHtml(jwt)}"><noscript><button>Continue</button></noscript></form>`,
      script: `document.getElementById("return").submit();`,
    });
  }

  function used(res: Response): void {
    logger.info({ event: "lti_deep_linking", outcome: "used" }, "LTI deep-linking choice without a live picker");
    sendLtiPage(res, frameAncestors, { status: 410, title: "This choice has expired", message: "This exam picker was used already or has expired. Start again from your course's Add content menu." });
  }

  return { picker, choose };
}
