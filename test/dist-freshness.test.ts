/**
 * global-setup skips its build only when dist/ is fresh: a source or tsconfig changed
 * since the last build, or an emitted file missing, means building again.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { staleDistReason } from "./support/dist-freshness.js";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

/** A project shaped like this one: two builds, the CommonJS one leaving out src/cli.ts. */
function project(): { root: string; at(file: string, seconds: number): void } {
  const root = mkdtempSync(join(tmpdir(), "eoa-fresh-"));
  dirs.push(root);
  const write = (file: string, text = "") => { mkdirSync(join(root, file, ".."), { recursive: true }); writeFileSync(join(root, file), text); };
  write("package.json", "{}");
  write("tsconfig.json", JSON.stringify({ compilerOptions: { strict: true } }));
  write("tsconfig.build.json", JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { outDir: "dist", rootDir: "src" }, include: ["src"] }));
  write("tsconfig.build.cjs.json", `{\n  // comments, as in ours\n  "extends": "./tsconfig.build.json", "compilerOptions": { "outDir": "dist/cjs" }, "exclude": ["src/cli.ts"]\n}`);
  for (const f of ["src/index.ts", "src/cli.ts", "src/core/a.ts", "src/types.d.ts"]) write(f);
  for (const f of ["dist/index.js", "dist/cli.js", "dist/core/a.js", "dist/cjs/index.js", "dist/cjs/core/a.js", "dist/cjs/package.json"]) write(f);
  const at = (file: string, seconds: number) => utimesSync(join(root, file), seconds, seconds);
  for (const f of ["package.json", "tsconfig.json", "tsconfig.build.json", "tsconfig.build.cjs.json", "src/index.ts", "src/cli.ts", "src/core/a.ts"]) at(f, 1_000);
  return { root, at };
}

describe("staleDistReason", () => {
  it("is undefined when every emitted file of both builds is newer than its source and the configs", () => {
    expect(staleDistReason(project().root)).toBeUndefined();
  });

  it("names an emitted file older than its source", () => {
    const { root, at } = project();
    at("dist/cjs/core/a.js", 500);
    expect(staleDistReason(root)).toBe("dist/cjs/core/a.js is older than src/core/a.ts or a tsconfig");
    at("dist/cjs/core/a.js", 2_000);
    at("src/index.ts", Date.now() / 1000 + 60); // edited after the build
    expect(staleDistReason(root)).toBe("dist/index.js is older than src/index.ts or a tsconfig");
  });

  it("builds again after a tsconfig or package.json changed", () => {
    for (const config of ["tsconfig.json", "tsconfig.build.cjs.json", "package.json"]) {
      const { root, at } = project();
      at(config, Date.now() / 1000 + 60);
      expect(staleDistReason(root), config).toMatch(/is older than/);
    }
  });

  it("names a missing emitted file, a new source's included, and the CommonJS package.json", () => {
    const fresh = project();
    rmSync(join(fresh.root, "dist/cjs/package.json"));
    expect(staleDistReason(fresh.root)).toBe("dist/cjs/package.json is missing");
    const added = project();
    writeFileSync(join(added.root, "src/core/b.ts"), "");
    expect(staleDistReason(added.root)).toBe("dist/core/b.js is missing");
  });
});
