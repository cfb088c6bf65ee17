/**
 * The two shared checks of values read from outside: bounded text (claims, form fields,
 * stored keys, options) and whole numbers in a range (options, ports, HTTP statuses, byte
 * counts, offsets). Each boundary is tested on both sides.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isText, textOf } from "../../src/core/text.js";
import { isWholeNumber } from "../../src/core/whole-number.js";
import { wholeNumber } from "../../src/core/option-schema.js";

describe("isText", () => {
  it("takes a string of 1 to max characters (String#length), both ends included", () => {
    expect(isText("a", 3)).toBe(true);
    expect(isText("abc", 3)).toBe(true);
    expect(isText("", 3)).toBe(false);
    expect(isText("abcd", 3)).toBe(false);
    expect(isText("😀", 2)).toBe(true); // two UTF-16 code units
    expect(isText("😀", 1)).toBe(false);
  });
  it("has no upper limit unless given one", () => {
    expect(isText("x".repeat(100_000))).toBe(true);
  });
  it("refuses anything that is not a string", () => {
    for (const value of [undefined, null, 1, ["a"], { length: 1 }, new String("a")]) expect(isText(value, 10)).toBe(false);
  });
  it("takes an empty string with min 0, and no fewer than min characters otherwise", () => {
    expect(isText("", 3, { min: 0 })).toBe(true);
    expect(isText("abcd", 3, { min: 0 })).toBe(false);
    expect(isText("a", 3, { min: 2 })).toBe(false);
    expect(isText("ab", 3, { min: 2 })).toBe(true);
  });
  it("measures without the surrounding white space with trim", () => {
    expect(isText("   ", Infinity, { trim: true })).toBe(false);
    expect(isText("   ", Infinity)).toBe(true);
    expect(isText(" ab ", 2, { trim: true })).toBe(true);
    expect(isText(" ab ", 2)).toBe(false);
  });
});

describe("textOf", () => {
  it("gives the text itself, or undefined", () => {
    expect(textOf("abc", 3)).toBe("abc");
    expect(textOf(" abc ", 5)).toBe(" abc ");
    expect(textOf("abcd", 3)).toBeUndefined();
    expect(textOf("")).toBeUndefined();
    expect(textOf(7)).toBeUndefined();
  });
  it("gives it trimmed with trim", () => {
    expect(textOf("  Ada \n", Infinity, { trim: true })).toBe("Ada");
    expect(textOf(" \t", Infinity, { trim: true })).toBeUndefined();
  });
});

describe("isWholeNumber", () => {
  it("takes an integer from min to max, both ends included", () => {
    expect(isWholeNumber(0, 0, 65_535)).toBe(true);
    expect(isWholeNumber(65_535, 0, 65_535)).toBe(true);
    expect(isWholeNumber(-1, 0, 65_535)).toBe(false);
    expect(isWholeNumber(65_536, 0, 65_535)).toBe(false);
    expect(isWholeNumber(-840, -840, 840)).toBe(true);
    expect(isWholeNumber(-841, -840, 840)).toBe(false);
  });
  it("has no upper limit unless given one", () => {
    expect(isWholeNumber(Number.MAX_SAFE_INTEGER, 1)).toBe(true);
    expect(isWholeNumber(0, 1)).toBe(false);
  });
  it("refuses fractions, NaN, infinities and anything that is not a number", () => {
    for (const value of [1.5, NaN, Infinity, -Infinity, "1", null, undefined, [1], 1n]) expect(isWholeNumber(value, -Infinity)).toBe(false);
  });
});

describe("wholeNumber (the option schema) checks as isWholeNumber does", () => {
  it("takes both ends and refuses just past them, with one message", () => {
    const schema = wholeNumber(1, 10, "ms");
    expect(schema.safeParse(1).success).toBe(true);
    expect(schema.safeParse(10).success).toBe(true);
    for (const value of [0, 11, 2.5, "5"]) {
      const result = schema.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe(`must be a whole number of ms from 1 to 10, got ${typeof value === "string" ? `"${value}"` : value}.`);
    }
  });
  it("lets an object's check across fields run past a number out of range, not past a fraction or a non-number", () => {
    const pair = z.object({ low: wholeNumber(1, 10), high: wholeNumber(1) }).refine((o) => o.high >= o.low, { error: "high is below low." });
    const messages = (input: unknown) => pair.safeParse(input).error?.issues.map((i) => i.message);
    expect(messages({ low: 11, high: 5 })).toEqual(["must be a whole number from 1 to 10, got 11.", "high is below low."]);
    expect(messages({ low: 7.5, high: 5 })).toEqual(["must be a whole number from 1 to 10, got 7.5."]);
    expect(messages({ low: "7", high: 5 })).toEqual(["must be a whole number from 1 to 10, got \"7\"."]);
  });
});
