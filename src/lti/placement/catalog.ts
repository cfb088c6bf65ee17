/**
 * What the LTI pages need to know of the router's exams (the deep-linking picker, the
 * instructor page), as a seam the router fills from its store and its platform clients:
 * src/lti knows nothing of stores, clients or organizations beyond their ids.
 */
import type { Request } from "express";
import type { LinkKind } from "../launch/typed-launch.js";

export interface CatalogExam {
  kind: LinkKind;
  id: string;
  name: string;
  classId: string;
  className: string;
  courseName: string;
}

/** A class and an oral exam made from inside the LMS (the picker's "a new class and exam for this course"). */
export interface NewExamInput {
  /** A course of the organization's store; undefined: a new course named `courseName`. */
  courseId: string | undefined;
  courseName: string;
  className: string;
  examName: string;
  /** Question texts; empty: the platform generates its fallback question. */
  questions: string[];
}

/** Thrown by `create` and `copy` when the request's platform client is not the organization's, or the platform refused. */
export class CatalogWriteFailed extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = "CatalogWriteFailed";
  }
}

export interface LtiCatalog {
  /**
   * The organization a launch request acts for when its deployment names none: the
   * router's own resolver on this request. Undefined: the request has no organization.
   */
  organizationIdFor(req: Request): Promise<string | undefined>;
  /** The organization's exams and role-plays its store knows (a bounded list). */
  list(org: string): Promise<CatalogExam[]>;
  /** One exam of the organization's store; undefined when it does not know it (or it is of the other kind). */
  exam(org: string, kind: LinkKind, id: string): Promise<CatalogExam | undefined>;
  /** The organization's courses its store knows, oldest first (where a new class may go). */
  courses(org: string): Promise<{ id: string; name: string }[]>;
  /** Creates the class (and course, if asked) and the oral exam on the organization's platform, and records them. */
  create(req: Request, org: string, input: NewExamInput): Promise<CatalogExam>;
  /** Copies the exam (its settings and questions) into a new class named `className` in the same course, and records both. */
  copy(req: Request, org: string, exam: CatalogExam, className: string): Promise<CatalogExam>;
}
