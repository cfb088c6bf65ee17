/**
 * The two exam kinds, which share one shape on the platform: `oralAssessments.*` on
 * `/oral-assessments` and `roleplays.*` on `/roleplay` (singular, as the reference has it).
 * Both lists take an optional `classId` filter.
 */
import { z } from "zod";
import {
  OralAssessment, OralAssessmentCreate, OralAssessmentUpdate, Roleplay, RoleplayCreate, RoleplayUpdate,
} from "../schemas.js";
import type { PlatformClient, RequestOptions } from "../types.js";
import { classFilterQuery, itemPath, type ResourceKit } from "./kit.js";

interface ExamKind<R extends z.ZodType, C extends z.ZodType, U extends z.ZodType> {
  collection: string;
  /** For messages: "oral assessment", "role-play". */
  noun: string;
  article: string;
  record: R;
  create: C;
  update: U;
}

function examResource<R extends z.ZodType, C extends z.ZodType, U extends z.ZodType>(kit: ResourceKit, kind: ExamKind<R, C, U>) {
  const { checked, record, remove } = kit;
  const one = `${kind.article} ${kind.noun}`;
  return {
    async create(body: z.input<C>, opts?: RequestOptions) {
      const payload = checked(kind.noun, "POST", {}, kind.create, body);
      return record(kind.record, one, "POST", kind.collection, payload, opts);
    },
    async list(filter?: { classId?: string }, opts?: RequestOptions) {
      const query = classFilterQuery(kit, `${kind.noun} list filter`, filter);
      return record(z.array(kind.record), `a list of ${kind.noun}s`, "GET", kind.collection + query, undefined, opts);
    },
    async retrieve(id: string, opts?: RequestOptions) {
      checked(`${kind.noun} id`, "GET", { id }, undefined);
      return record(kind.record, one, "GET", itemPath(kind.collection, id), undefined, opts);
    },
    async update(id: string, body: z.input<U>, opts?: RequestOptions) {
      const payload = checked(`${kind.noun} update`, "PUT", { id }, kind.update, body);
      return record(kind.record, one, "PUT", itemPath(kind.collection, id), payload, opts);
    },
    async del(id: string, opts?: RequestOptions) {
      checked(`${kind.noun} id`, "DELETE", { id }, undefined);
      return remove(itemPath(kind.collection, id), opts);
    },
  };
}

export function oralAssessmentsResource(kit: ResourceKit): PlatformClient["oralAssessments"] {
  return examResource(kit, {
    collection: "/oral-assessments", noun: "oral assessment", article: "an",
    record: OralAssessment, create: OralAssessmentCreate, update: OralAssessmentUpdate,
  });
}

export function roleplaysResource(kit: ResourceKit): PlatformClient["roleplays"] {
  return examResource(kit, {
    collection: "/roleplay", noun: "role-play", article: "a",
    record: Roleplay, create: RoleplayCreate, update: RoleplayUpdate,
  });
}
