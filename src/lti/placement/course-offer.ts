/**
 * The course offer: an instructor's first launch, in a course copied from another (a term
 * rollover: a new `context.id`, its links naming the old exam), of an exam whose class is
 * linked to another course. The page offers to copy the exam (settings and questions)
 * into a new class for this course where `lti.canCopy` (and `canLink`, purpose "copy")
 * allows: a copy discloses the questions, so by default only the LMS user who linked the
 * original may; and, where `lti.canLink` allows, to use it as it is.
 * `POST /lti/course` with the offer's id and `action` (`copy` or `use`) answers it:
 *
 * - `copy`: `canCopy` is asked again, then the copy is made on the organization's platform (catalog.copy), its new class
 *   linked to this course, and the course records old exam → copy, so the links the LMS
 *   copied (still naming the old exam) open the copy for this course's learners.
 * - `use`: `canLink` is asked again, then the class is linked to this course too.
 *
 * The offer is bound to the launch by a random id in the page, kept in the fleet's
 * single-use store with what the answer needs (never the token), taken once.
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import { randomId } from "../../core/random-id.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import type { LtiCourseKey } from "../../store/lti-course-types.js";
import { CatalogWriteFailed, type CatalogExam, type LtiCatalog } from "./catalog.js";
import type { CourseBinding } from "./course-binding.js";
import { escapeHtml } from "../../core/html.js";
import { isText } from "../../core/text.js";
import { frameForLaunch } from "../launch/launch-frame.js";
import type { RegistrationSource } from "../lms/registration-source.js";
import { sendLtiPage } from "../shared/pages.js";
import type { LtiSettings } from "../settings/settings.js";
import { toolBase } from "../shared/tool-url.js";
import { userIdOf } from "../launch/typed-launch.js";
import type { VerifiedLaunch } from "../launch/verify-launch.js";

interface Offer {
  org: string;
  course: LtiCourseKey;
  exam: CatalogExam;
  /** The exam the course's links name (the copy's original, or the exam itself). */
  fromExamId: string;
  /** The new class's default name. */
  className: string;
  claims: Record<string, unknown>;
}

const offerKey = (id: string) => `lti-offer:${id}`;
const ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface CourseOfferDeps {
  settings: LtiSettings;
  catalog: LtiCatalog;
  binding: CourseBinding;
  offers: SingleUseStore;
  logger: Logger;
  frameAncestors: readonly string[];
  /** The registrations: the offer's answer may be framed by its launch's LMS only (launch-frame.ts). */
  source: { find: RegistrationSource["find"] };
}

/** The instructor's page offering the copy (if `canCopy`) and the exam as it is (if `canUse`): at least one. */
export async function offerCourseChoice(req: Request, res: Response, input: {
  launch: VerifiedLaunch; org: string; course: LtiCourseKey; exam: CatalogExam; fromExamId: string; canUse: boolean; canCopy: boolean;
}, deps: Omit<CourseOfferDeps, "source">): Promise<void> {
  const { launch, exam } = input;
  const courseTitle = [launch.context?.title, launch.context?.label, input.course.contextId].find((v) => isText(v)) as string;
  const className = `${exam.className} (${courseTitle})`.slice(0, 200);
  const id = randomId(24);
  const offer: Offer = { org: input.org, course: input.course, exam, fromExamId: input.fromExamId, className, claims: launch.kept };
  await deps.offers.put(offerKey(id), JSON.stringify(offer), deps.settings.stateTtlMs);
  const action = `${toolBase(req, deps.settings.toolUrl)}/lti/course`;
  const use = input.canUse
    ? `<p><button id="use" name="action" value="use">Use it as it is</button> Students of both courses take the same exam, in ${escapeHtml(exam.className)}.</p>`
    : "";
  sendLtiPage(res, deps.frameAncestors, {
    status: 200, title: exam.name,
    message: `This course's link names an exam of ${exam.className}, which belongs to another LMS course (this course may be a copy of it). Students of this course are refused until you choose.`,
    body: `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="offer" value="${escapeHtml(id)}">`
      + (input.canCopy
        ? `<p><label>New class <input name="className" maxlength="200" value="${escapeHtml(className)}"></label></p>`
          + `<p><button id="copy" name="action" value="copy">Copy the exam into a new class for this course</button> Same settings and questions; this course's students take the copy.</p>`
        : `<p id="no-copy">Copying is only for the instructor who placed this exam in its course, unless the app's administrator allows more (lti.canCopy).</p>`)
      + `${use}</form>`,
  });
}

/** `POST /lti/course`: the instructor's choice. */
export function courseChoiceRoute(deps: CourseOfferDeps) {
  const { logger, frameAncestors, binding } = deps;
  const page = (res: Response, status: number, title: string, message: string) => sendLtiPage(res, frameAncestors, { status, title, message });

  return async (req: Request, res: Response): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const id = typeof body.offer === "string" && ID.test(body.offer) ? body.offer : undefined;
    const text = id === undefined ? undefined : await deps.offers.peek(offerKey(id));
    if (id === undefined || text === undefined) {
      logger.info({ event: "lti_course_offer", outcome: "used" }, "LTI course choice without a live offer");
      return page(res, 410, "This choice has expired", "This page was used already or has expired. Open the link from your course again.");
    }
    const offer = JSON.parse(text) as Offer;
    await frameForLaunch(res, deps.source, offer.course.issuer, offer.course.clientId);
    const action = body.action;
    const className = typeof body.className === "string" ? body.className.trim() : offer.className;
    if (action !== "copy" && action !== "use") return page(res, 400, "Choose what to do", "Choose Copy or Use (field action). Go back and choose again.");
    if (action === "copy" && !isText(className, 200)) return page(res, 400, "Name the new class", "The new class needs a name of 1 to 200 characters (field className). Go back and name it.");
    const sub = userIdOf(offer.claims) ?? "";
    if (action === "use") {
      if (!(await binding.mayLink(offer.claims, offer.org, offer.course, offer.exam))) {
        logger.warn({ event: "lti_refused", check: "can_link", status: 403, examId: offer.exam.id }, "LTI launch refused: can_link");
        return page(res, 403, "This exam cannot be used here", `This app does not let your account link ${offer.exam.className} to this course. Copy the exam instead.`);
      }
      if ((await deps.offers.take(offerKey(id))) === undefined) return page(res, 410, "This choice has expired", "This page was used already. Open the link from your course again.");
      await binding.link(offer.org, offer.course, offer.exam.classId, sub);
      logger.info({ event: "lti_course_offer", outcome: "use", examId: offer.exam.id }, "LTI course linked to the exam's class as it is");
      return page(res, 200, offer.exam.name, `Ready: this course is now linked to ${offer.exam.className}; its students who open the link start this exam.`);
    }
    // Asked again: the page offers a copy only where allowed, and a hand-made post may ask for one anyway.
    if (!(await binding.mayCopy(offer.claims, offer.org, offer.course, offer.exam))) {
      logger.warn({ event: "lti_refused", check: "can_copy", status: 403, examId: offer.exam.id }, "LTI launch refused: can_copy");
      return page(res, 403, "This exam cannot be copied here", `A copy would show this course the questions of ${offer.exam.className}: only the instructor who placed it in its course may copy it, unless the app's administrator allows more (lti.canCopy, lti.canLink).`);
    }
    if ((await deps.offers.take(offerKey(id))) === undefined) return page(res, 410, "This choice has expired", "This page was used already. Open the link from your course again.");
    let copy: CatalogExam;
    try {
      copy = await deps.catalog.copy(req, offer.org, offer.exam, className);
    } catch (error) {
      if (!(error instanceof CatalogWriteFailed)) throw error;
      logger.warn({ event: "lti_course_offer", outcome: "copy_failed", examId: offer.exam.id, error: error.message }, "LTI course copy failed");
      return page(res, error.status === 404 ? 404 : 502, "The exam could not be copied", "The exam service did not make the copy. Nothing was changed: open the link from your course again to retry.");
    }
    await binding.link(offer.org, offer.course, copy.classId, sub);
    await deps.binding.recordCopy(offer.org, offer.course, offer.fromExamId, copy.id);
    logger.info({ event: "lti_course_offer", outcome: "copy", examId: offer.exam.id, copyId: copy.id }, "LTI exam copied into a new class for the course");
    sendLtiPage(res, frameAncestors, {
      status: 200, title: copy.name, message: `Copied into ${copy.className}: this course's students who open the link now start the copy.`,
      body: `<dl><dt>Class</dt><dd id="class">${escapeHtml(copy.className)}</dd><dt>Exam</dt><dd id="copy-id">${escapeHtml(copy.id)}</dd></dl>`,
    });
  };
}
