/**
 * The shared helpers every page and every URL option goes through: the HTML escaper
 * (router, LTI and emulator pages), JSON inside a script element (the LTI pages' data
 * blocks, the LMS emulator's storage frame) and "https, or http on loopback" (the LTI tool URL and
 * an LMS's endpoints, Dynamic Registration, `examHost`, the platform client's `baseUrl`).
 */
import { describe, expect, it } from "vitest";
import { escapeHtml, scriptJson } from "../../src/core/html.js";
import { isHttpsOrLoopback } from "../../src/core/secure-url.js";

describe("escapeHtml", () => {
  it("turns each of & < > \" ' into a numeric reference, and nothing else", () => {
    expect(escapeHtml(`<a href="x?a=1&b='2'">é</a>`)).toBe("&#60;a href=&#34;x?a=1&#38;b=&#39;2&#39;&#34;&#62;é&#60;/a&#62;");
    expect(escapeHtml("&#38;")).toBe("&#38;#38;");
  });
  it("reads a missing value as empty text and anything else as its string", () => {
    expect(escapeHtml(undefined)).toBe("");
    expect(escapeHtml(null)).toBe("");
    expect(escapeHtml(42)).toBe("42");
  });
});

describe("scriptJson", () => {
  const hostile = { origin: "https://lms.example</script><script>alert(1)</script>", note: "<!-- a & b -->" };
  it("writes no <, > or & that could end or bend a script element", () => {
    const written = scriptJson(hostile);
    expect(written).not.toMatch(/[<>&]/);
    expect(written).toContain("\\u003c/script\\u003e");
    expect(written).toContain("\\u0026");
  });
  it("reads back as the same value, as JSON and as a script literal", () => {
    expect(JSON.parse(scriptJson(hostile))).toEqual(hostile);
    expect(new Function(`return ${scriptJson(hostile)};`)()).toEqual(hostile);
  });
});

describe("isHttpsOrLoopback", () => {
  const ok = (url: string, loopbackHttp?: boolean) => isHttpsOrLoopback(new URL(url), loopbackHttp);
  it("accepts https anywhere and http on localhost, 127.0.0.1 and [::1] only", () => {
    expect(ok("https://lms.example.edu/auth")).toBe(true);
    expect(ok("http://localhost:3000/oral")).toBe(true);
    expect(ok("http://127.0.0.1:8080")).toBe(true);
    expect(ok("http://[::1]:4010")).toBe(true);
    expect(ok("http://lms.example.edu")).toBe(false);
    expect(ok("http://localhost.example.edu")).toBe(false);
    expect(ok("http://127.0.0.1.nip.io")).toBe(false);
    expect(ok("ftp://localhost")).toBe(false);
  });
  it("accepts https only when loopback http is turned off", () => {
    expect(ok("http://localhost:3000", false)).toBe(false);
    expect(ok("https://localhost:3000", false)).toBe(true);
  });
});
