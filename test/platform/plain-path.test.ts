/**
 * `isPlainPath` lets the client skip `new URL` (the guard that keeps the key under the API
 * base) and the adapter skip parsing. That is only sound if a URL parser leaves every
 * path it accepts exactly as it is, under the base: this checks it on generated paths.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainPath } from "../../src/platform/plain-path.js";

const BASE = "https://api.example.test/api/v1/live";

describe("isPlainPath", () => {
  it("accepts only paths a URL parser keeps as they are, under the base", () => {
    const char = fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@/%?#\\ \t.é\u0000".split(""), "%2e", "%2E", "..", "%2f", "//");
    const path = fc.oneof(
      fc.array(char, { maxLength: 24 }).map((parts) => `/${parts.join("")}`),
      fc.string(),
      fc.constantFrom("/courses/a1", "/courses/..", "/courses/%2e%2E/x", "/a/./b", "/a?b=..", "/a/.%2e?x", "/a#b", "/a\\b", "//evil.test/x"),
    );
    let accepted = 0;
    fc.assert(fc.property(path, (p) => {
      if (!isPlainPath(p)) return;
      accepted += 1;
      const url = new URL(BASE + p);
      expect(url.origin).toBe("https://api.example.test");
      expect(url.pathname.startsWith("/api/v1/live/")).toBe(true);
      expect(url.href).toBe(BASE + p);
    }), { numRuns: 5_000 });
    // The property is about accepted paths: make sure there were plenty.
    expect(accepted).toBeGreaterThan(500);
  });

  it("refuses dot segments in every spelling, and characters a parser would change", () => {
    for (const p of ["/a/..", "/a/../b", "/a/%2e%2e/b", "/a/.%2E", "/.", "/a/./b", "/a/..?x", "/a b", "/a\\b", "/a#b", "/é", "a/b", ""]) {
      expect(isPlainPath(p), p).toBe(false);
    }
    for (const p of ["/courses/abc", "/courses/a.b/classes", "/x?y=../z", "/a/...", "/a/%2e%2e%2e"]) expect(isPlainPath(p), p).toBe(true);
  });
});
