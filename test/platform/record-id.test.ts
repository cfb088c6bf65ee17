/**
 * `isRecordId` is `RecordId`'s rules as a predicate, for the checks every instructor
 * request makes; the schema stays the source of the messages. The two must agree on
 * every value.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isRecordId, RecordId } from "../../src/platform/schemas.js";

describe("isRecordId", () => {
  it("accepts exactly what the RecordId schema accepts", () => {
    const tricky = fc.constantFrom("", ".", "..", "...", "a", "a\u0000b", "\u007f", "\u0085", "x".repeat(200), "x".repeat(201), "é".repeat(200), "%2e%2e", " ");
    const value = fc.oneof(
      tricky,
      fc.string({ maxLength: 210 }),
      fc.string({ unit: "binary", maxLength: 210 }),
      fc.anything(),
    );
    fc.assert(fc.property(value, (v) => {
      expect(isRecordId(v)).toBe(RecordId.safeParse(v).success);
    }), { numRuns: 2_000 });
  });
});
