/**
 * The LTI pages' view of the router's exams (`LtiCatalog`), from the store, per
 * organization: the deep-linking picker lists every exam and role-play of the
 * organization's courses and classes (at most `MAX_LISTED`, classes oldest first), the
 * instructor page looks one up; new classes and copies are made on the organization's
 * platform (lti-platform-exams.ts). The organization of a launch whose deployment names none
 * is the router's own resolver's answer for the request.
 */
import type { Request } from "express";
import type { CatalogExam, LtiCatalog } from "../lti/placement/catalog.js";
import type { ExamKind, OralStore } from "../store/types.js";
import { platformExams, type PlatformOf } from "./lti-platform-exams.js";

/** A picker longer than this is no use in an LMS frame; the instructor API lists the rest. */
const MAX_LISTED = 500;

export function ltiCatalog(store: OralStore, organizationIdFor: (req: Request) => Promise<string | undefined>, platformOf: PlatformOf): LtiCatalog {
  return {
    organizationIdFor,
    ...platformExams(store, platformOf),
    async courses(org) {
      return (await store.listCourses(org)).slice(0, MAX_LISTED).map((c) => ({ id: c.id, name: c.name }));
    },
    async list(org) {
      const out: CatalogExam[] = [];
      for (const course of await store.listCourses(org)) {
        for (const cls of await store.listClasses(org, course.id)) {
          for (const kind of ["oral", "roleplay"] as const satisfies readonly ExamKind[]) {
            for (const a of await store.listAssessments(org, cls.id, kind)) {
              out.push({ kind, id: a.id, name: a.name, classId: cls.id, className: cls.name, courseName: course.name });
              if (out.length >= MAX_LISTED) return out;
            }
          }
        }
      }
      return out;
    },
    async exam(org, kind, id) {
      const a = await store.getAssessment(org, id);
      if (!a || (a.kind ?? "oral") !== kind) return undefined;
      const cls = await store.getClass(org, a.classId);
      const course = cls ? await store.getCourse(org, cls.courseId) : undefined;
      if (!cls || !course) return undefined;
      return { kind, id: a.id, name: a.name, classId: cls.id, className: cls.name, courseName: course.name };
    },
  };
}
