/** Pooled random ids: the right size and alphabet, and never the same bytes twice (across refills of the pool). */
import { describe, expect, it } from "vitest";
import { randomId } from "../../src/core/random-id.js";

describe("randomId", () => {
  it("gives base64url ids of the asked size, all different across many refills of the pool", () => {
    const seen = new Set<string>();
    // 18 bytes each: 20,000 ids are about 90 fills of the 4 KiB pool.
    for (let i = 0; i < 20_000; i++) {
      const id = randomId(18);
      expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
    expect(randomId(12)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it("refuses a size it cannot serve", () => {
    expect(() => randomId(0)).toThrow(RangeError);
    expect(() => randomId(4_097)).toThrow(RangeError);
    expect(() => randomId(1.5)).toThrow(RangeError);
  });
});
