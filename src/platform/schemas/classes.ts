/**
 * Classes (inside a course). Only `name` is required: dates and `classMode` are optional
 * on the platform, and the client never fills them in (the platform's own default for
 * `classMode` applies: `in-person` per the reference).
 */
import { z } from "zod";
import { ClassMode, IsoDateTime, NonEmptyText, atLeastOneField, requestObject } from "./primitives.js";

const classFields = {
  name: NonEmptyText(200),
  /** ISO 8601, sent as UTC with milliseconds. */
  startDate: IsoDateTime.optional(),
  endDate: IsoDateTime.optional(),
  classMode: ClassMode.optional(),
};

/** When both dates are given, the end must not come before the start. */
function datesInOrder(body: { startDate?: string; endDate?: string }, ctx: z.core.$RefinementCtx): void {
  if (typeof body.startDate === "string" && typeof body.endDate === "string" && body.endDate < body.startDate) {
    ctx.addIssue({ code: "custom", path: ["endDate"], message: "must not be before startDate" });
  }
}

export const ClassCreate = requestObject(classFields).superRefine(datesInOrder);
export type ClassCreateInput = z.input<typeof ClassCreate>;

/** The fields to change (sent as given: partial update); at least one. */
export const ClassUpdate = requestObject({ ...classFields, name: classFields.name.optional() })
  .superRefine(datesInOrder)
  .refine(...atLeastOneField);
export type ClassUpdateInput = z.input<typeof ClassUpdate>;

export const Class = z.looseObject({
  _id: z.string().min(1),
  name: z.string(),
  courseId: z.string().optional(),
  classMode: z.string().optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
});
export type Class = z.infer<typeof Class>;
