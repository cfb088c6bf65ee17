/**
 * The `User-Agent` LMS calls carry names the package as package.json does: a release that
 * bumps the version without src/core/package-info.ts fails here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PACKAGE_NAME, PACKAGE_VERSION, userAgentOf } from "../../src/core/package-info.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { name: string; version: string };

describe("the package's name and version", () => {
  it("are package.json's", () => {
    expect(PACKAGE_NAME).toBe(pkg.name);
    expect(PACKAGE_VERSION).toBe(pkg.version);
  });

  it("make the User-Agent, the integrator's product after the package's", () => {
    expect(userAgentOf()).toBe(`${pkg.name}/${pkg.version}`);
    expect(userAgentOf("ExampleU-Exams/1.0 (admin@example.edu)")).toBe(`${pkg.name}/${pkg.version} ExampleU-Exams/1.0 (admin@example.edu)`);
  });
});
