/**
 * Bounds on the fields the schemas do not model. Objects are loose (unknown fields pass
 * through to the platform), so without a bound one request could store a value nested
 * thousands deep or megabytes large: it was accepted (201), then broke every later read
 * of that record (listing the class, launching the exam: 500). Each unknown field is
 * measured here without recursion (a deep value must not overflow our own stack), and a
 * field past a bound is a validation issue naming it (400 from the router and emulator,
 * `PlatformValidationError` from the client).
 */
import { z } from "zod";

/** Deepest nesting of objects/arrays inside one unknown field (the field itself is level 1). */
export const PASS_THROUGH_MAX_DEPTH = 32;
/** Largest unknown field, in bytes of JSON (approximately: strings count their UTF-16 length). */
export const PASS_THROUGH_MAX_BYTES = 64 * 1024;

/** Why a value is out of bounds, or undefined. */
function passThroughProblem(value: unknown): string | undefined {
  let bytes = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v === "string") bytes += v.length + 2;
    else if (v === null || typeof v !== "object") bytes += 8;
    else {
      if (depth > PASS_THROUGH_MAX_DEPTH) return `must be nested at most ${PASS_THROUGH_MAX_DEPTH} levels deep`;
      const entries = Array.isArray(v) ? v.map((item) => ["", item] as const) : Object.entries(v);
      bytes += 2;
      for (const [key, item] of entries) {
        bytes += key.length + 4;
        stack.push({ value: item, depth: depth + 1 });
      }
    }
    if (bytes > PASS_THROUGH_MAX_BYTES) return `must be at most ${PASS_THROUGH_MAX_BYTES} bytes as JSON`;
  }
  return undefined;
}

/**
 * The schema of a field an object does not model: anything JSON, within the bounds. Used
 * as the objects' `catchall` (not as a refinement of the object, which would forbid
 * `.pick()` on it), so each issue's path is the field's name.
 */
export const PassThroughValue = z.unknown().superRefine((value, ctx) => {
  const problem = passThroughProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
