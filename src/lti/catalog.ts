/**
 * What the LTI pages need to know of the router's exams (the deep-linking picker, the
 * instructor page), as a seam the router fills from its store: src/lti knows nothing of
 * stores or organizations beyond their ids.
 */
import type { Request } from "express";
import type { LinkKind } from "./open-link.js";

export interface CatalogExam {
  kind: LinkKind;
  id: string;
  name: string;
  classId: string;
  className: string;
  courseName: string;
}

export interface LtiCatalog {
  /**
   * The organization a launch request acts for when its deployment names none: the
   * router's own resolver on this request. Undefined: the request has no organization.
   */
  organizationOf(req: Request): Promise<string | undefined>;
  /** The organization's exams and role-plays its store knows (a bounded list). */
  list(org: string): Promise<CatalogExam[]>;
  /** One exam of the organization's store; undefined when it does not know it (or it is of the other kind). */
  exam(org: string, kind: LinkKind, id: string): Promise<CatalogExam | undefined>;
}
