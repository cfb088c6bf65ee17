/**
 * Course binding (DESIGN.md v3): an exam opens for a learner only in an LMS course its
 * class is linked to. An LMS course is the launch's (issuer, client id, deployment,
 * `context.id`); the links live in the router's store, per organization. They are made by
 * an instructor of the course (deep-linking.ts, instructor-page.ts, course-offer.ts) when
 * `lti.canLink` allows, and read here at every learner launch, before anything else is
 * done for it: a learner of a course the exam's class is not linked to gets a 403 page
 * and a log line, and nothing is sent to the platform.
 *
 * In a copied course (a term rollover: a new `context.id`, links naming the old exam) the
 * instructor's first launch may copy the exam into a class of the course's own; the
 * course then records old exam → copy, and its learners' launches follow it. Where the LMS
 * sent a copy notice for the course (notices.ts), its learners who come first get a page
 * saying they wait for their instructor.
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import type { LtiCourseKey, LtiCourseLink } from "../../store/lti-course-types.js";
import type { OralStoreLti } from "../../store/lti-types.js";
import type { CatalogExam, LtiCatalog } from "./catalog.js";
import { launchOrganization } from "./launch-organization.js";
import type { CanLinkContext, LinkedTo } from "../options/options.js";
import { refuse } from "../shared/refusal.js";
import type { LtiSettings } from "../settings/settings.js";
import { userIdOf, withExam, type LinkedExam, type LinkKind } from "../launch/typed-launch.js";
import type { VerifiedLaunch } from "../launch/verify-launch.js";

/** The launch's LMS course; undefined when it names no context (a launch outside any course). */
export function courseOf(launch: VerifiedLaunch): LtiCourseKey | undefined {
  const id = launch.context?.id;
  if (id === undefined) return undefined;
  return { issuer: launch.registration.issuer, clientId: launch.registration.clientId, deploymentId: launch.deploymentId, contextId: id };
}

/** A learner's launch course binding let through: its exam named (the course's copy, if one was made). */
export type BoundLaunch = VerifiedLaunch & { exam: LinkedExam };

/**
 * The default `canLink`: only a class already linked to this course (a class made from
 * this course's picker is linked at once). A class linked to no course yet (made in the
 * app's dashboard) needs the app's consent: a first-come default let any instructor of
 * the organization take an exam meant for another course.
 */
export const defaultCanLink = (linkedTo: LinkedTo): boolean => linkedTo === "this-course";

/** The default `canCopy`: the LMS user (same issuer, same `sub`) who linked the original to its course copies it. */
export const defaultCanCopy = (claims: Readonly<Record<string, unknown>>, ctx: Pick<CanLinkContext, "course" | "linkedCourses">): boolean => {
  const sub = userIdOf(claims);
  return sub !== undefined && ctx.linkedCourses.some((l) => l.issuer === ctx.course.issuer && l.linkedBy === sub);
};

/** Where a class is linked, from one course's point of view. */
export interface LinkState {
  linkedTo: LinkedTo;
  linkedCourses: LtiCourseLink[];
}

const sameCourse = (a: LtiCourseKey, b: LtiCourseKey) => a.issuer === b.issuer && a.clientId === b.clientId && a.deploymentId === b.deploymentId && a.contextId === b.contextId;

export interface CourseBindingDeps {
  settings: LtiSettings;
  store: OralStoreLti;
  catalog: LtiCatalog;
  logger: Logger;
  frameAncestors: readonly string[];
}

export type CourseBinding = ReturnType<typeof courseBinding>;

export function courseBinding(deps: CourseBindingDeps) {
  const { store, settings, logger } = deps;

  async function linkState(org: string, course: LtiCourseKey, classId: string): Promise<LinkState> {
    const linkedCourses = await store.listLtiCourseLinks(org, { classId });
    const linkedTo = linkedCourses.length === 0 ? "none" : linkedCourses.some((l) => sameCourse(l, course)) ? "this-course" : "another-course";
    return { linkedTo, linkedCourses };
  }

  async function linkedTo(org: string, course: LtiCourseKey, classId: string): Promise<LinkedTo> {
    return (await linkState(org, course, classId)).linkedTo;
  }

  const contextOf = (org: string, course: LtiCourseKey, exam: Pick<CatalogExam, "id" | "classId">, state: LinkState, purpose: CanLinkContext["purpose"]): CanLinkContext =>
    ({ examId: exam.id, classId: exam.classId, organization: org, linkedTo: state.linkedTo, purpose, course, linkedCourses: state.linkedCourses });

  /** Whether this instructor may link the exam's class to their course: `lti.canLink`, else the default. */
  async function mayLink(claims: Readonly<Record<string, unknown>>, org: string, course: LtiCourseKey, exam: Pick<CatalogExam, "id" | "classId">, state?: LinkState): Promise<boolean> {
    const known = state ?? (await linkState(org, course, exam.classId));
    if (!settings.canLink) return defaultCanLink(known.linkedTo);
    return (await settings.canLink(claims, contextOf(org, course, exam, known, "link"))) === true;
  }

  /**
   * Whether this instructor may copy the exam (its settings and questions: a copy
   * discloses them) into a new class of their course: `lti.canCopy`; without it, the LMS
   * user who linked the original, or whom the app's `lti.canLink` allows (asked with
   * `purpose: "copy"`).
   */
  async function mayCopy(claims: Readonly<Record<string, unknown>>, org: string, course: LtiCourseKey, exam: Pick<CatalogExam, "id" | "classId">): Promise<boolean> {
    const ctx = contextOf(org, course, exam, await linkState(org, course, exam.classId), "copy");
    if (settings.canCopy) return (await settings.canCopy(claims, ctx)) === true;
    return defaultCanCopy(claims, ctx) || (settings.canLink !== undefined && (await settings.canLink(claims, ctx)) === true);
  }

  async function link(org: string, course: LtiCourseKey, classId: string, sub: string): Promise<void> {
    await store.putLtiCourseLink(org, { ...course, classId, linkedBy: sub, linkedAt: new Date().toISOString() });
    logger.info({ event: "lti_course_link", classId, contextId: course.contextId, deploymentId: course.deploymentId }, "LTI course linked to a class");
  }

  /** The exam this course's links naming `examId` open: its copy for the course, else itself. */
  async function followed(org: string, course: LtiCourseKey, kind: LinkKind, examId: string): Promise<{ kind: LinkKind; id: string; copied: boolean }> {
    const copy = await store.getLtiExamCopy(org, course, examId);
    return copy === undefined ? { kind, id: examId, copied: false } : { kind, id: copy, copied: true };
  }

  /**
   * A learner's launch: the launch to go on with (naming the course's copy of the exam, if
   * there is one), or undefined when a page was answered. Fails closed: a link whose exam
   * the launch's one reading (typed-launch.ts) cannot name is refused here too.
   */
  async function check(req: Request, res: Response, launch: VerifiedLaunch): Promise<BoundLaunch | undefined> {
    const named = launch.exam;
    if (!named) {
      refuse(res, logger, deps.frameAncestors, {
        status: 403, check: "custom_exam_id", title: "This link does not open an exam",
        message: "This link does not name an exam this tool can open. Please tell your instructor.",
        forAdministrator: `This link names no exam: give the resource link the custom parameter ${launch.examParameter}=<exam id> (or roleplay_id), or place it with Deep Linking.`,
        detail: { resourceLink: launch.resourceLink?.id, deploymentId: launch.deploymentId },
      });
      return undefined;
    }
    const course = courseOf(launch);
    const org = await launchOrganization(req, res, launch, deps);
    if (org === undefined) return undefined;
    const exam = course && (await followed(org, course, named.kind, named.id));
    const found = exam && (await deps.catalog.exam(org, exam.kind, exam.id));
    if (!course || !found || !(await store.getLtiCourseLink(org, course, found.classId))) {
      // A class of another course (a copied course whose instructor may not copy it): say so, the learner can pass it on.
      const elsewhere = course && found && (await linkedTo(org, course, found.classId)) === "another-course";
      // The LMS said this course is a copy (notices.ts): its links wait for an instructor's choice.
      const copied = elsewhere && course ? await store.getLtiCourseCopyNotice(course) : undefined;
      if (copied) {
        refuse(res, logger, deps.frameAncestors, {
          status: 403, check: "course_copy_pending", title: "Waiting for your instructor",
          message: "This course was copied from another one, and your instructor has not yet chosen how this exam carries over into it. Please try again once your instructor has opened it here.",
          forAdministrator: `Your LMS reported this course as a copy${copied.originContextId ? ` of course ${copied.originContextId}` : ""} (LtiContextCopyNotice, ${copied.noticedAt}). The exam's class belongs to another course: an instructor of this course opens the link once and chooses to copy the exam or to use it as it is.`,
          detail: { examId: named.id, contextId: course?.contextId, deploymentId: launch.deploymentId, originContextId: copied.originContextId },
        });
        return undefined;
      }
      refuse(res, logger, deps.frameAncestors, {
        status: 403, check: "course_binding", title: course ? "This exam is not open in your course yet" : "This exam opens only from its course",
        message: !course
          ? "Your LMS sent this launch without naming your course, and an exam opens only in the course it was placed in. Open it from your course's page, or tell your LMS administrator."
          : elsewhere
            ? "This exam belongs to another course, and has not been copied into yours. Please tell your instructor: they can copy it if whoever placed it in its course allows it."
            : "Your instructor has not opened this exam in this course yet. Please try again later, or tell your instructor.",
        forAdministrator: course
          ? "The exam's class is not linked to this LMS course: an instructor of the course links it by placing the exam with the tool's exam picker (Deep Linking), or by opening this link once."
          : "The launch names no course (no context claim): exams open only in the course they were placed in.",
        detail: { examId: named.id, contextId: course?.contextId, deploymentId: launch.deploymentId, known: found !== undefined },
      });
      return undefined;
    }
    return exam.copied ? withExam(launch, { kind: exam.kind, id: exam.id }) : { ...launch, exam: named };
  }

  /** In this course, links naming `fromExamId` now open `toExamId` (a course copy). */
  async function recordCopy(org: string, course: LtiCourseKey, fromExamId: string, toExamId: string): Promise<void> {
    await store.putLtiExamCopy(org, course, fromExamId, toExamId);
  }

  /** The course's LTI Advantage endpoints as this launch carries them (NRPS, AGS): what later calls without a launch use. */
  async function recordServices(org: string, course: LtiCourseKey, launch: VerifiedLaunch): Promise<void> {
    await store.putLtiCourseServices(org, course, { membershipsUrl: launch.services.membershipsUrl, agsEndpoint: launch.services.ags?.json, seenAt: new Date().toISOString() });
  }

  return { check, linkState, linkedTo, mayLink, mayCopy, link, followed, recordCopy, recordServices };
}
