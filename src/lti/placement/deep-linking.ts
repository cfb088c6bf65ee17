/**
 * Deep Linking 2.0: an instructor's `LtiDeepLinkingRequest` answers a picker of the
 * organization's exams and role-plays that `lti.canLink` lets them link to this LMS
 * course (the course's linked classes first), and a form making a new class and exam for
 * the course on the platform. The choice, `POST /lti/deep-link` with `examId` or
 * `roleplayId` (or `create` and the form's fields), links the exam's class to the course
 * (course-binding.ts) and answers a page that auto-posts the signed
 * `LtiDeepLinkingResponse` (field `JWT`) to the LMS's `deep_link_return_url`.
 *
 * The picker is bound to the launch that opened it by a random id in the page, kept in the
 * fleet's single-use store with what the response needs (registration, deployment, return
 * URL, `data`, organization, course, the few claims `canLink` is asked with again): peeked
 * while the choice is checked (a wrong choice may be corrected), then taken, once.
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import { randomId } from "../../core/random-id.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import type { LtiCourseKey } from "../../store/lti-course-types.js";
import { CatalogWriteFailed, type CatalogExam, type LtiCatalog } from "./catalog.js";
import { isInstructorRole } from "../shared/claims.js";
import { courseOf, type CourseBinding, type LinkState } from "./course-binding.js";
import { signDeepLinkResponse } from "./deep-link-response.js";
import type { DeepLinkSettings } from "../options/deep-link-settings.js";
import { launchOrganization } from "./launch-organization.js";
import { readNewExamForm } from "./new-exam-form.js";
import { escapeHtml } from "../../core/html.js";
import { isText } from "../../core/text.js";
import { frameForLaunch } from "../launch/launch-frame.js";
import type { RegistrationSource } from "../lms/registration-source.js";
import { sendLtiPage } from "../shared/pages.js";
import { pickerBody } from "./picker-page.js";
import { refuse } from "../shared/refusal.js";
import type { LtiSettings } from "../settings/settings.js";
import { launchUrl, toolBase } from "../shared/tool-url.js";
import { userIdOf, type LinkKind } from "../launch/typed-launch.js";
import type { VerifiedLaunch } from "../launch/verify-launch.js";

interface Pick {
  issuer: string;
  clientId: string;
  deploymentId: string;
  org: string;
  course: LtiCourseKey;
  courseTitle: string;
  claims: Record<string, unknown>;
  settings: DeepLinkSettings;
}

const pickKey = (id: string) => `lti-pick:${id}`;
const ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface DeepLinkingDeps {
  settings: LtiSettings;
  catalog: LtiCatalog;
  store: SingleUseStore;
  binding: CourseBinding;
  logger: Logger;
  frameAncestors: readonly string[];
  /** The registrations: the choice's answer may be framed by its launch's LMS only (launch-frame.ts). */
  source: { find: RegistrationSource["find"] };
}

export function deepLinking(deps: DeepLinkingDeps) {
  const { settings, catalog, store, binding, logger, frameAncestors } = deps;
  const refuseWith = (res: Response, status: number, check: string, forAdministrator: string, title = "Exams cannot be added here") =>
    refuse(res, logger, frameAncestors, { status, check, title, forAdministrator });

  /**
   * The exams this instructor may link to the course, the course's own classes first; and
   * those classes. Never a class of another course (whatever `canLink` says: another
   * course's exams, with their ids, are not this picker's to show; a course shares one
   * through the course offer).
   */
  async function linkable(claims: Record<string, unknown>, org: string, course: LtiCourseKey): Promise<{ exams: CatalogExam[]; linkedClasses: Set<string>; hidden: number }> {
    const byClass = new Map<string, LinkState>();
    const mine: CatalogExam[] = [];
    const others: CatalogExam[] = [];
    let hidden = 0;
    for (const exam of await catalog.list(org)) {
      let state = byClass.get(exam.classId);
      if (state === undefined) byClass.set(exam.classId, (state = await binding.linkState(org, course, exam.classId)));
      if (state.linkedTo === "another-course" || !(await binding.mayLink(claims, org, course, exam, state))) {
        hidden += 1;
        continue;
      }
      (state.linkedTo === "this-course" ? mine : others).push(exam);
    }
    return { exams: [...mine, ...others], linkedClasses: new Set([...byClass].filter(([, l]) => l.linkedTo === "this-course").map(([c]) => c)), hidden };
  }

  /** `POST /lti/launch` with an `LtiDeepLinkingRequest`, verified. */
  async function picker(req: Request, res: Response, launch: VerifiedLaunch): Promise<void> {
    if (!isInstructorRole(launch.roles, settings.rolesWithoutContext)) {
      return refuse(res, logger, frameAncestors, { status: 403, check: "deep_linking_role", title: "Only instructors add exams", message: "Adding an exam to a course is for its instructors.", forAdministrator: "A deep-linking request came from a user without an instructor role." });
    }
    const read = launch.services.deepLinking;
    if ("refused" in read) return refuseWith(res, 400, read.refused.check, read.refused.forAdministrator);
    const course = courseOf(launch);
    if (!course) return refuseWith(res, 400, "context", "The deep-linking request names no course (no context claim with an id): exams are placed in a course, and open only there.");
    const org = await launchOrganization(req, res, launch, { settings, catalog, logger, frameAncestors });
    if (org === undefined) return;
    const courseTitle = ([launch.context?.title, launch.context?.label].find((v) => isText(v, Infinity, { trim: true })) as string | undefined ?? course.contextId).trim().slice(0, 200);
    const [{ exams, linkedClasses, hidden }, courses] = await Promise.all([linkable(launch.forHooks, org, course), catalog.courses(org)]);
    const id = randomId(24);
    const pick: Pick = {
      issuer: launch.registration.issuer, clientId: launch.registration.clientId, deploymentId: launch.deploymentId, org, course, courseTitle,
      claims: launch.kept, settings: read.settings,
    };
    await store.put(pickKey(id), JSON.stringify(pick), settings.stateTtlMs);
    logger.info({ event: "lti_deep_linking", outcome: "picker", exams: exams.length }, "LTI deep-linking picker");
    sendLtiPage(res, frameAncestors, {
      status: 200, title: "Add an oral exam",
      message: exams.length > 0 ? "Choose the exam students will open from this link." : "There is no exam you can add to this course yet: create one below.",
      body: pickerBody({ action: `${toolBase(req, settings.toolUrl)}/lti/deep-link`, pick: id, exams, linkedClasses, hidden, courses, courseTitle }),
    });
  }

  /** `POST /lti/deep-link`: the picker's choice. */
  async function choose(req: Request, res: Response): Promise<void> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const id = typeof body.pick === "string" && ID.test(body.pick) ? body.pick : undefined;
    const text = id === undefined ? undefined : await store.peek(pickKey(id));
    if (id === undefined || text === undefined) return used(res);
    const pick = JSON.parse(text) as Pick;
    await frameForLaunch(res, deps.source, pick.issuer, pick.clientId);
    if (body.create !== undefined) return create(req, res, id, pick, body);
    const [kind, examId]: [LinkKind, unknown] = body.roleplayId !== undefined ? ["roleplay", body.roleplayId] : ["oral", body.examId];
    const exam = typeof examId === "string" && ID.test(examId) ? await catalog.exam(pick.org, kind, examId) : undefined;
    if (!exam) {
      logger.info({ event: "lti_deep_linking", outcome: "unknown_exam", kind }, "LTI deep-linking choice names no exam of the organization");
      return sendLtiPage(res, frameAncestors, { status: 400, title: "Choose an exam", message: `Choose one of the listed exams (field ${kind === "roleplay" ? "roleplayId" : "examId"}). Go back and choose again.` });
    }
    // The page lists only what canLink allows, never another course's class; a hand-made post is asked again.
    const state = await binding.linkState(pick.org, pick.course, exam.classId);
    if (state.linkedTo === "another-course" || !(await binding.mayLink(pick.claims, pick.org, pick.course, exam, state))) {
      logger.warn({ event: "lti_refused", check: "can_link", status: 403, examId: exam.id }, "LTI launch refused: can_link");
      return sendLtiPage(res, frameAncestors, { status: 403, title: "This exam cannot be added here", message: `This app does not let your account link ${exam.className} to this course. Choose another exam, or create one.` });
    }
    if ((await store.take(pickKey(id))) === undefined) return used(res);
    await place(req, res, pick, exam);
  }

  /** The form's new class and exam: checked, made on the platform, then placed. */
  async function create(req: Request, res: Response, id: string, pick: Pick, body: Record<string, unknown>): Promise<void> {
    const form = readNewExamForm(body, pick.courseTitle);
    if ("field" in form) return sendLtiPage(res, frameAncestors, { status: 400, title: "Check the new exam", message: `The field ${form.field} ${form.problem}. Go back and correct it.` });
    if ((await store.take(pickKey(id))) === undefined) return used(res);
    let exam: CatalogExam;
    try {
      exam = await catalog.create(req, pick.org, form.input);
    } catch (error) {
      if (!(error instanceof CatalogWriteFailed)) throw error;
      logger.warn({ event: "lti_deep_linking", outcome: "create_failed", error: error.message }, "LTI deep-linking: the new class and exam could not be created");
      const status = error.status === 400 ? 400 : error.status === 404 ? 404 : 502;
      return sendLtiPage(res, frameAncestors, { status, title: "The exam could not be created", message: status === 400 ? "Choose one of the listed courses (field courseId), from your course's Add content menu again." : "The exam service did not create it. Start again from your course's Add content menu." });
    }
    logger.info({ event: "lti_deep_linking", outcome: "created", examId: exam.id, classId: exam.classId }, "LTI deep-linking: a new class and exam for the course");
    await place(req, res, pick, exam);
  }

  /** Links the exam's class to the course, then answers the form posting the signed response. */
  async function place(req: Request, res: Response, pick: Pick, exam: CatalogExam): Promise<void> {
    await binding.link(pick.org, pick.course, exam.classId, userIdOf(pick.claims) ?? "");
    const jwt = await signDeepLinkResponse({
      keys: settings.keys, issuer: pick.issuer, clientId: pick.clientId, deploymentId: pick.deploymentId,
      settings: pick.settings, exam, launchUrl: launchUrl(req, settings.toolUrl),
      ...(settings.gradebook ? { lineItem: { scoreMaximum: settings.gradebook.scoreMaximum, tag: settings.gradebook.tag } } : {}),
    });
    logger.info({ event: "lti_deep_linking", outcome: "placed", kind: exam.kind, examId: exam.id }, "LTI deep-linking response sent");
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
