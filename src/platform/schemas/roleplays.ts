/**
 * Role-plays (`/roleplay`): the platform's second exam kind, launched like an oral
 * assessment but on `/exam/{id}/roleplay`. The scenario texts have the reference's
 * length limits, checked before anything is sent (on update, for the fields given).
 * Lengths are counted as JavaScript counts them (UTF-16 code units), after trimming.
 */
import { z } from "zod";
import { NonEmptyText, RecordId, Seconds, atLeastOneField, requestObject } from "./primitives.js";

/** The reference's limits, in characters. */
export const ROLEPLAY_LIMITS = {
  roleplayScenario: { min: 150, max: 3000 },
  roleplayScenarioDetails: { min: 300, max: 6000 },
} as const;

const Bounded = ({ min, max }: { min: number; max: number }) =>
  z.string().trim()
    .min(min, `must be at least ${min} characters (the platform's minimum)`)
    .max(max, `must be at most ${max} characters (the platform's maximum)`);

const roleplayFields = {
  name: NonEmptyText(200),
  classId: RecordId,
  /** The role the student plays. */
  roleplayStudentRole: NonEmptyText(1000),
  /** The role the AI partner plays. */
  roleplayCoralRole: NonEmptyText(1000),
  /** The student-side scenario: 150 to 3000 characters. */
  roleplayScenario: Bounded(ROLEPLAY_LIMITS.roleplayScenario),
  /** How the AI should act (tone, behaviour, limits, reply style): 300 to 6000 characters. */
  roleplayScenarioDetails: Bounded(ROLEPLAY_LIMITS.roleplayScenarioDetails),
};

export const RoleplayCreate = requestObject({
  ...roleplayFields,
  /** Longest the role-play may last, seconds; the platform's default is 600 (not filled in here). */
  roleplayDuration: Seconds.optional(),
});
export type RoleplayCreateInput = z.input<typeof RoleplayCreate>;

/** The fields to change (sent as given: partial update); limits apply to those given; at least one. */
export const RoleplayUpdate = requestObject({
  name: roleplayFields.name.optional(),
  classId: roleplayFields.classId.optional(),
  roleplayStudentRole: roleplayFields.roleplayStudentRole.optional(),
  roleplayCoralRole: roleplayFields.roleplayCoralRole.optional(),
  roleplayScenario: roleplayFields.roleplayScenario.optional(),
  roleplayScenarioDetails: roleplayFields.roleplayScenarioDetails.optional(),
  roleplayDuration: Seconds.optional(),
})
  .refine(...atLeastOneField);
export type RoleplayUpdateInput = z.input<typeof RoleplayUpdate>;

export const Roleplay = z.looseObject({
  _id: z.string().min(1),
  name: z.string(),
  classId: z.string().optional(),
  roleplayStudentRole: z.string().optional(),
  roleplayCoralRole: z.string().optional(),
  roleplayScenario: z.string().optional(),
  roleplayScenarioDetails: z.string().optional(),
  roleplayDuration: z.number().optional(),
});
export type Roleplay = z.infer<typeof Roleplay>;
