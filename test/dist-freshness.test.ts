/**
 * global-setup skips its build only when dist/ is fresh: a source, a build script or a
 * config changed since the last build, a source added or deleted, or a file the build
 * writes missing, means building again.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIXED_OUTPUTS } from "../scripts/build.js";
import { staleDistReason } from "./support/dist-freshness.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

const BUILT = 2_000;
const BEFORE = 1_000;

/** A project shaped like this one, built at BUILT after every input last changed at BEFORE. */
function project(): { root: string; at(path: string, seconds: number): void; write(file: string): void } {
  const root = mkdtempSync(join(tmpdir(), "eoa-fresh-"));
  dirs.push(root);
  const write = (file: string) => { mkdirSync(join(root, file, ".."), { recursive: true }); writeFileSync(join(root, file), ""); };
  const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);
  const inputs = ["package.json", "tsconfig.json", "tsconfig.build.json", "scripts/build.ts", "src/index.ts", "src/cli.ts", "src/core/a.ts"];
  for (const f of inputs) write(f);
  for (const f of FIXED_OUTPUTS) write(join("dist", f));
  for (const f of [...inputs, "scripts", "src", "src/core"]) at(f, BEFORE);
  for (const f of FIXED_OUTPUTS) at(join("dist", f), BUILT);
  return { root, at, write };
}

describe("staleDistReason", () => {
  it("is undefined when every file the build writes is newer than every input", () => {
    expect(FIXED_OUTPUTS).toEqual(expect.arrayContaining(["index.cjs", "index.js", "index.d.cts", "index.d.ts", "emulator/index.cjs", "cli.js"]));
    expect(staleDistReason(project().root)).toBeUndefined();
  });

  it("names the input changed after the build", () => {
    const { root, at } = project();
    at("src/core/a.ts", BUILT + 60);
    expect(staleDistReason(root)).toBe(`dist/${FIXED_OUTPUTS[0]} is older than src/core/a.ts`);
  });

  it("builds again after a build script, a tsconfig or package.json changed", () => {
    for (const input of ["scripts/build.ts", "tsconfig.json", "tsconfig.build.json", "package.json"]) {
      const { root, at } = project();
      at(input, BUILT + 60);
      expect(staleDistReason(root), input).toBe(`dist/${FIXED_OUTPUTS[0]} is older than ${input}`);
    }
  });

  it("builds again after a source was added or deleted (its folder changed)", () => {
    const added = project();
    added.write("src/core/b.ts");
    expect(staleDistReason(added.root)).toMatch(/is older than src\/core/);
    const deleted = project();
    rmSync(join(deleted.root, "src/core/a.ts"));
    expect(staleDistReason(deleted.root)).toBe(`dist/${FIXED_OUTPUTS[0]} is older than src/core`);
  });

  it("names a missing file", () => {
    const { root } = project();
    rmSync(join(root, "dist", "emulator", "index.d.cts"));
    expect(staleDistReason(root)).toBe("dist/emulator/index.d.cts is missing");
  });
});
