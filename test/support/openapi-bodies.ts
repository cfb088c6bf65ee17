/**
 * Request bodies generated from the OpenAPI document (boundaries, every enum value, every
 * format), and the zod schema behind each request body, for checking that the two agree.
 */
import type { z } from "zod";
import {
  ClassCreate, ClassUpdate, CourseCreate, CourseUpdate, OralAssessmentCreate, OralAssessmentUpdate, RoleplayCreate, RoleplayUpdate,
} from "../../src/platform/schemas.js";
import { PrepareRequest } from "../../src/api/prepare-request.js";
import { ScoresRequest } from "../../src/api/scores-request.js";
import { resolveRef, type Json } from "./openapi-schema.js";

/** The zod schema behind each request body of the document. */
export const ZOD_FOR: Record<string, z.ZodType> = {
  CourseCreate, CourseUpdate, ClassCreate, ClassUpdate, OralAssessmentCreate, OralAssessmentUpdate, RoleplayCreate, RoleplayUpdate, PrepareRequest, ScoresRequest,
};

/**
 * Rules between fields that JSON Schema cannot state, which the document therefore states
 * in the schema's description (test/openapi-bodies.test.ts checks it): a body breaking one is left out of the
 * "valid by the document ⇒ accepted by zod" comparison.
 */
const DATES_IN_ORDER = {
  described: /`endDate` must not be before `startDate`/,
  broken: (body: Json) => Date.parse(String(body.endDate)) < Date.parse(String(body.startDate)),
};
export const CROSS_FIELD_RULES: Record<string, { described: RegExp; broken: (body: Json) => boolean }> = {
  ClassCreate: DATES_IN_ORDER,
  ClassUpdate: DATES_IN_ORDER,
  ScoresRequest: {
    described: /`student`, their `orgInternalId` or e-mail, is an alias of `studentId`\)\. `scoreGiven` must not exceed `scoreMaximum`; `gradingProgress: FullyGraded` needs a `scoreGiven`/,
    broken: (body: Json) => (Array.isArray(body.scores) ? (body.scores as Json[]) : [body]).some((s) => (typeof s.scoreGiven === "number" && typeof s.scoreMaximum === "number" && s.scoreGiven > s.scoreMaximum)
      || (s.gradingProgress === "FullyGraded" && s.scoreGiven === undefined) || (Array.isArray(body.scores) && s.studentId === undefined && s.student === undefined)),
  },
};

/** A few values for a schema: boundaries, every enum value, every format; whitespace where a pattern forbids it. */
function valuesFor(schema: Json): unknown[] {
  if (typeof schema.$ref === "string") return valuesFor(resolveRef(schema.$ref));
  if (Array.isArray(schema.anyOf) && schema.type === undefined) return (schema.anyOf as Json[]).flatMap(valuesFor);
  if (Array.isArray(schema.enum)) return [...schema.enum];
  switch (schema.type) {
    case "string": {
      if (schema.format === "date") return ["2026-09-01", "2027-02-28"];
      if (schema.format === "date-time") return ["2026-09-01T09:00:00.000Z", "2026-09-01T09:00:00+02:00", "2026-09-01t09:00:00z"];
      if (schema.format === "email") return ["ada@school.example", "no-at-sign", "two@@signs.example"];
      const min = Math.max(1, (schema.minLength as number | undefined) ?? 1);
      const out: unknown[] = ["q".repeat(min), "Écrire ✓ 漢字"];
      if (typeof schema.maxLength === "number") out.push("m".repeat(schema.maxLength), "m".repeat(schema.maxLength + 1));
      if (schema.pattern !== undefined) out.push("   ");
      return out;
    }
    case "integer":
    case "number": {
      const lo = typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : (schema.minimum as number | undefined) ?? 0;
      const out: unknown[] = [lo, lo - 1, 600];
      if (typeof schema.maximum === "number") out.push(schema.maximum, schema.maximum + 1);
      if (schema.type === "integer") out.push(lo + 0.5);
      return out;
    }
    case "array": {
      const items = valuesFor(schema.items as Json);
      return [[], [items[0]], items.slice(0, 3)];
    }
    case "object":
      return objectsFor(schema);
    case "boolean":
      return [true, false];
    default:
      return [];
  }
}

export function objectsFor(schema: Json): Json[] {
  // A body of several forms (the scores' single and batch): each form's bodies, then the examples.
  if (Array.isArray(schema.anyOf) && schema.properties === undefined) {
    return [...(schema.anyOf as Json[]).flatMap((form) => objectsFor(typeof form.$ref === "string" ? resolveRef(form.$ref) : form)), ...((schema.examples ?? []) as Json[])];
  }
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const first = (name: string) => valuesFor(props[name]!)[0];
  const base: Json = {};
  for (const name of required) base[name] = first(name);
  const full: Json = { ...base };
  for (const name of Object.keys(props)) full[name] = first(name);
  const out: Json[] = [base, full, { ...full, examDescription: "kept as is", isDraft: true }];
  for (const name of Object.keys(props)) {
    for (const v of valuesFor(props[name]!)) {
      out.push({ ...base, [name]: v }, { ...full, [name]: v });
    }
    if (!required.has(name)) {
      const without = { ...full };
      delete without[name];
      out.push(without);
    }
  }
  for (const example of (schema.examples ?? []) as Json[]) out.push(example);
  return out;
}
