/**
 * The body of `POST /oral-assessments/:examId/prepare`, as a zod schema: the router
 * validates with it and the OpenAPI document is generated from it.
 */
import { z } from "zod";
import { StudentIdentity } from "../platform/schemas.js";

/** One student of a roster: the one `StudentIdentity` schema (extra fields are stripped). */
export const RosterStudent = StudentIdentity;

/** Default largest roster (`prepare.maxRoster`). */
const DEFAULT_MAX_ROSTER = 5_000;

/**
 * `startAt`: when the exam starts (RFC 3339 date-time with a zone). `roster`: the
 * students to prepare; optional when the router has a `roster` option. Loose, like the
 * platform's objects: unknown fields are ignored, not refused.
 */
export function prepareRequestSchema(maxRoster: number = DEFAULT_MAX_ROSTER) {
  return z.looseObject({
    startAt: z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time with a zone, e.g. 2026-09-01T09:00:00Z" }),
    roster: z.array(RosterStudent)
      .min(1, "must list at least one student")
      .max(maxRoster, `must list at most ${maxRoster} students`)
      .optional(),
  });
}

export const PrepareRequest = prepareRequestSchema();
