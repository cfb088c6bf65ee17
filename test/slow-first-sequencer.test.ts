/**
 * The suite's file order (test/support/slow-first-sequencer.ts): the CPU-bound files first,
 * side by side, then the isolated files, then one shared-module project at a time, the one with the slowest file first, each slowest
 * first; and its list of slow files names files that exist, so a renamed one is not
 * quietly left to start late.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestSpecification } from "vitest/node";
import { describe, expect, it } from "vitest";
import { CPU_BOUND, SLOW_FILES, slowFirst } from "./support/slow-first-sequencer.js";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What the sequencer reads of a specification: its project's name and isolation, its file. */
const spec = (project: string, file: string, isolate = false) =>
  ({ project: { name: project, config: { isolate } }, moduleId: join(root, file) }) as unknown as TestSpecification;
const names = (specs: TestSpecification[]) => specs.map((s) => `${s.project.name}:${s.moduleId.slice(root.length)}`);

describe("the slow-first file order", () => {
  it("lists only test files that exist", () => {
    const missing = [...Object.keys(SLOW_FILES), ...CPU_BOUND].filter((file) => !file.endsWith(".test.ts") || !existsSync(join(root, file)));
    expect(missing).toEqual([]);
  });

  it("starts the CPU-bound files, then the isolated files, then the project with the slowest file, each project's listed files slowest first and the rest in vitest's order", () => {
    // Vitest's order: projects by name, a project's files by its own rule.
    const given = [
      spec("express4", "test/router/small-a.test.ts"),
      spec("express4", "test/router/failures.test.ts"),
      spec("express4", "test/router/small-b.test.ts"),
      spec("express5", "test/router/small-a.test.ts"),
      spec("express5", "test/fleet/redis-outage.test.ts"),
      spec("express5", "test/router/failures.test.ts"),
      spec("express5", "test/package/pack.test.ts"),
      spec("express5-own-process", "test/router/prewarm-deprecated.test.ts", true),
      spec("express5-own-process", "test/router/lti-login-flood.test.ts", true),
    ];
    expect(names(slowFirst(given, root))).toEqual([
      "express5-own-process:test/router/lti-login-flood.test.ts",
      "express5:test/package/pack.test.ts",
      "express5-own-process:test/router/prewarm-deprecated.test.ts",
      "express5:test/fleet/redis-outage.test.ts",
      "express5:test/router/failures.test.ts",
      "express5:test/router/small-a.test.ts",
      "express4:test/router/failures.test.ts",
      "express4:test/router/small-a.test.ts",
      "express4:test/router/small-b.test.ts",
    ]);
  });

  it("keeps vitest's order for projects with no listed file, one project at a time", () => {
    const given = [spec("a", "test/x.test.ts"), spec("a", "test/y.test.ts"), spec("b", "test/x.test.ts"), spec("b", "test/z.test.ts")];
    expect(names(slowFirst(given, root))).toEqual(names(given));
  });
});
