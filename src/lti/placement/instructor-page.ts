/**
 * An instructor's launch of a resource link (issue point 7): a page naming the exam, its
 * class and course, whether the course's students who follow the link reach it, and where
 * the instructor API reports its preparation (`GET <mount>/oral-assessments/:examId/prepare`,
 * behind the app's instructor sign-in).
 *
 * Course binding (course-binding.ts): opening the link links the exam's class to this
 * LMS course when `lti.canLink` allows and the class is linked to no course yet (or
 * already to this one). A class linked to another course (a copied course, a term
 * rollover) gets the course offer instead (course-offer.ts): copy the exam into a new
 * class for this course, or use it as it is where `canLink` allows. Nothing is asked of
 * the platform here.
 */
import { isServiceUrl } from "../shared/lms-url.js";
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import type { LtiCourseKey } from "../../store/lti-course-types.js";
import type { CatalogExam, LtiCatalog } from "./catalog.js";
import { courseOf, type CourseBinding } from "./course-binding.js";
import { offerCourseChoice } from "./course-offer.js";
import { launchOrganization } from "./launch-organization.js";
import { escapeHtml } from "../../core/html.js";
import { sendLtiPage } from "../shared/pages.js";
import { PREPARE_FORM_SCRIPT, prepareCourseForm } from "../services/prepare-course.js";
import type { LtiSettings } from "../settings/settings.js";
import { toolBase } from "../shared/tool-url.js";
import type { VerifiedLaunch } from "../launch/verify-launch.js";

export interface InstructorPageDeps {
  settings: LtiSettings;
  catalog: LtiCatalog;
  logger: Logger;
  frameAncestors: readonly string[];
  binding: CourseBinding;
  /** The fleet's single-use store: a pending course offer. */
  offers: SingleUseStore;
}

const whatOf = (kind: string) => (kind === "roleplay" ? "role-play" : "oral exam");

export async function instructorPage(req: Request, res: Response, launch: VerifiedLaunch, deps: InstructorPageDeps): Promise<void> {
  const { frameAncestors, binding, logger } = deps;
  const named = launch.exam;
  if (!named) {
    logger.info({ event: "lti_launch", outcome: "instructor", status: "no_exam" }, "LTI instructor launch of a link naming no exam");
    return sendLtiPage(res, frameAncestors, { status: 200, title: "This link names no exam", message: `Students who open it are refused. Give the link the custom parameter ${launch.examParameter}=<id>, or add the exam again with the tool's Deep Linking (the exam picker).` });
  }
  const org = await launchOrganization(req, res, launch, deps);
  if (org === undefined) return;
  const course = courseOf(launch);
  const followed = course ? await binding.followed(org, course, named.kind, named.id) : { ...named, copied: false };
  const exam = await deps.catalog.exam(org, followed.kind, followed.id);
  const what = whatOf(named.kind);
  if (!exam) {
    logger.info({ event: "lti_launch", outcome: "instructor", examId: named.id, status: "unknown" }, "LTI instructor launch");
    return sendLtiPage(res, frameAncestors, {
      status: 200, title: `Unknown ${what} ${named.id}`,
      message: `This tool's exams for your school include no ${what} ${named.id}: students who open this link see "Exam not found". Add the link again with the exam picker, or fix its ${named.kind === "roleplay" ? "roleplay_id" : "exam_id"}.`,
    });
  }
  if (!course) {
    logger.info({ event: "lti_launch", outcome: "instructor", examId: exam.id, status: "no_course" }, "LTI instructor launch outside a course");
    return examPage(req, res, exam, deps, "Not open to students: this launch names no LMS course (no context), and exams open only in the course they were placed in.");
  }
  const state = await binding.linkState(org, course, exam.classId);
  const linked = state.linkedTo;
  const sub = launch.userId;
  // The course's NRPS/AGS endpoints, for calls made later without a launch; a failed write costs only that.
  await binding.recordServices(org, course, launch).catch((error: unknown) => logger.warn({ event: "lti_course_services", outcome: "not_recorded", error: (error as Error)?.message }, "the course's LTI service endpoints could not be recorded"));
  const prepare: Prepare = { org, course, launch };
  if (linked === "this-course") {
    logger.info({ event: "lti_launch", outcome: "instructor", examId: exam.id, status: "ready" }, "LTI instructor launch");
    return examPage(req, res, exam, deps, `Ready: students of this course who open this link start this ${what}, signed in as themselves.`, prepare);
  }
  const allowed = await binding.mayLink(launch.forHooks, org, course, exam, state);
  if (linked === "none" && allowed) {
    await binding.link(org, course, exam.classId, sub);
    logger.info({ event: "lti_launch", outcome: "instructor", examId: exam.id, status: "linked" }, "LTI instructor launch linked the course");
    return examPage(req, res, exam, deps, `Ready: this course is now linked to ${exam.className}; its students who open this link start this ${what}, signed in as themselves.`, prepare);
  }
  const canCopy = linked === "another-course" && (await binding.mayCopy(launch.forHooks, org, course, exam));
  if (linked === "another-course" && (allowed || canCopy)) {
    logger.info({ event: "lti_launch", outcome: "instructor", examId: exam.id, status: "offer" }, "LTI instructor launch in a course copied from another");
    return offerCourseChoice(req, res, { launch, org, course, exam, fromExamId: named.id, canUse: allowed, canCopy }, deps);
  }
  logger.warn({ event: "lti_refused", check: linked === "another-course" ? "can_copy" : "can_link", status: 403, examId: exam.id, contextId: course.contextId }, `LTI launch refused: ${linked === "another-course" ? "can_copy" : "can_link"}`);
  sendLtiPage(res, frameAncestors, {
    status: 403, title: exam.name,
    message: `You may not open this ${what} in this course, and students who open the link are refused. ${linked === "another-course" ? COPY_REFUSED(exam) : LINK_REFUSED(exam)}`,
  });
}

/** Who can allow what was refused (docs/lti.md "Who may link what"). */
const COPY_REFUSED = (exam: CatalogExam) => `${exam.className} belongs to another course of your LMS, and a copy would show this course its questions: only the instructor who placed it there may copy it, unless the app's administrator allows more (lti.canCopy, lti.canLink).`;
const LINK_REFUSED = (exam: CatalogExam) => `${exam.className} was not made from this course: linking it here needs the consent of the app's administrator (lti.canLink). Or make a new exam from this course's exam picker (Add content).`;

/** What *Prepare this exam for the course* needs of a linked course's launch. */
interface Prepare { org: string; course: LtiCourseKey; launch: VerifiedLaunch }

/** The exam's page, with its student-link status (and, for a linked oral exam in an LMS offering NRPS, *Prepare this exam for the course*). */
async function examPage(req: Request, res: Response, exam: CatalogExam, deps: InstructorPageDeps, status: string, prepare?: Prepare): Promise<void> {
  const what = whatOf(exam.kind);
  // The roster form posts the token there later: an https URL (plain http on loopback only with lti.allowLoopbackHttp).
  const membershipsUrl = ((url) => (isServiceUrl(url, deps.settings.allowLoopbackHttp) ? url : undefined))(prepare?.launch.services.membershipsUrl);
  const form = prepare && membershipsUrl && exam.kind === "oral"
    ? await prepareCourseForm(req, {
      org: prepare.org, course: prepare.course, examId: exam.id, examName: exam.name, classId: exam.classId, courseId: undefined, membershipsUrl,
      rlid: prepare.launch.resourceLink?.id,
    }, { forms: deps.offers, roster: deps.settings.roster, settings: deps.settings })
    : "";
  const prepareApi = `${toolBase(req, deps.settings.toolUrl)}/oral-assessments/${encodeURIComponent(exam.id)}/prepare`;
  sendLtiPage(res, deps.frameAncestors, {
    status: 200, title: exam.name, message: `The ${what} of ${exam.className} (${exam.courseName}).`,
    body: `<dl><dt>Class</dt><dd id="class">${escapeHtml(exam.className)}</dd><dt>Course</dt><dd>${escapeHtml(exam.courseName)}</dd>`
      + `<dt>Student link</dt><dd id="status">${escapeHtml(status)}</dd></dl>`
      + (exam.kind === "oral" ? `<p><a id="prepare" href="${escapeHtml(prepareApi)}" target="_blank" rel="noopener noreferrer">Preparation status</a> (opens in your school's app: sign in there as an instructor to follow it).</p>` : "")
      + form,
    ...(form ? { script: PREPARE_FORM_SCRIPT } : {}),
  });
}
