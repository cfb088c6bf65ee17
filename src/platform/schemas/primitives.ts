/**
 * Building blocks shared by every resource schema: ids, text, dates, the platform's
 * enums and the envelope's `meta`. `../schemas.ts` re-exports all of it.
 */
import { z } from "zod";
import { isText } from "../../core/text.js";
import { PassThroughValue } from "../pass-through.js";

// C0 and C1 control characters (and DEL). They have no business in an id, and in a path
// segment they are a classic request-splitting vector.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A platform record id (`_id`) used in a path. Rejected locally when empty, too long,
 * holding control characters, or a dot segment (`.`/`..`), which a URL parser would
 * resolve into another path.
 */
export const RecordId = z
  .string()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .refine((s) => !CONTROL_CHARS.test(s), "must not contain control characters")
  .refine((s) => s !== "." && s !== "..", "must not be a dot segment");

/**
 * `RecordId`'s rules as one predicate, for the checks every instructor request makes (the
 * router's path parameter, then the client's own check before it builds the path): a
 * zod parse is costly on a hot request path, a predicate is not. The schema stays
 * the one place for the messages and the OpenAPI document; a property test
 * (`test/platform/record-id.test.ts`) holds the two to the same answers.
 */
export function isRecordId(value: unknown): value is string {
  return isText(value, 200) && !CONTROL_CHARS.test(value) && value !== "." && value !== "..";
}

/**
 * A request body object: loose (fields we do not model pass through to the platform), but
 * each unknown field is bounded in depth and size (see pass-through.ts).
 */
export const requestObject = <Shape extends z.ZodRawShape>(shape: Shape) => z.object(shape).catchall(PassThroughValue);

/** Trimmed text that must not be empty, up to `max` characters. */
export const NonEmptyText = (max: number) => z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);

/** Free text that may be empty (the platform's default for descriptions is `""`). */
export const FreeText = (max: number) => z.string().max(max, `must be at most ${max} characters`);

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A point in time: a `Date`, an ISO date (`2026-09-01`, read as UTC midnight) or an ISO
 * date-time with a zone (`Z` or an offset). Always sent as ISO 8601 UTC with
 * milliseconds, as the platform expects. A date-time without a zone is refused rather
 * than guessed: it would mean different instants on different servers.
 */
/** The date part names a day that exists (no 30 February), and the time part a real time. */
function realCalendarDate(text: string): boolean {
  const [, y, m, d, hh = "0", mm = "0", ss = "0"] = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/i.exec(text) ?? [];
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && Number(hh) <= 23 && Number(mm) <= 59 && Number(ss) <= 59;
}

export const IsoDateTime = z.union([z.date(), z.string()]).transform((value, ctx) => {
  if (typeof value === "string" && !ISO_DATE.test(value) && !ISO_DATE_TIME.test(value)) {
    ctx.addIssue({
      code: "custom",
      message: "must be an ISO 8601 date (2026-09-01) or date-time with a zone (2026-09-01T09:00:00Z)",
    });
    return z.NEVER;
  }
  const date = value instanceof Date ? value : new Date(value);
  // `new Date` rolls 2026-02-30 over to March 2 instead of refusing it.
  if (Number.isNaN(date.getTime()) || (typeof value === "string" && !realCalendarDate(value))) {
    ctx.addIssue({ code: "custom", message: "is not a valid date" });
    return z.NEVER;
  }
  return date.toISOString();
});

/** A length of time in whole seconds (exam `duration`, `roleplayDuration`); at most a day. */
export const Seconds = z.number().int("must be a whole number of seconds").positive("must be positive").max(86_400, "must be at most 86400 seconds (a day)");

/**
 * How a class meets. The reference's default is `in-person` (a pending change says
 * `hybrid`): the client sends none when the caller gives none, so the platform decides.
 */
export const ClassMode = z.enum(["in-person", "online", "hybrid"]);
export const ExamType = z.enum(["Generic", "Personalized", "Hybrid"]);

/**
 * The exam languages the reference lists. `vn` (Vietnamese) and `cn` (Chinese) are the
 * platform's codes, not ISO's `vi`/`zh`; what it does with another code is not stated, so
 * anything else is refused here rather than sent on a guess.
 */
export const LANGUAGE_CODES = ["en", "ar", "fr", "it", "de", "tr", "es", "vn", "cn"] as const;
export const Language = z.enum(LANGUAGE_CODES, {
  error: () => `must be one of ${LANGUAGE_CODES.join(", ")} (Vietnamese is vn, Chinese is cn)`,
});
export type Language = z.infer<typeof Language>;

/** `meta` of the vendor's envelope. */
export const Meta = z.looseObject({ requestId: z.string().optional() });
export type Meta = z.infer<typeof Meta>;

/** At least one field: an update that changes nothing is a caller's mistake. */
export const atLeastOneField = [
  (body: object) => Object.keys(body).length > 0,
  { message: "must change at least one field" },
] as const;
