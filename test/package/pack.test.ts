/**
 * The published artefact: `npm pack`, installed into an empty folder, loads with both
 * `import` and `require()` (Node ≥ 20.19's require(esm)), ships type declarations, and
 * its `./emulator` subpath works.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "eoa-pack-"));

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: dir, encoding: "utf8", timeout: 60_000 });
}

beforeAll(() => {
  // dist/ was built by global-setup; --ignore-scripts keeps pack from building again.
  execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: root, stdio: "pipe" });
  const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack produced no tarball");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  // --ignore-scripts: the native SQLite module is loaded lazily and not needed here, and
  // compiling it from source would take a minute.
  execFileSync("npm", ["install", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", `./${tarball}`, "express@5"], { cwd: dir, stdio: "pipe", timeout: 240_000 });
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const USE = `
  const { createPlatformClient, oralAssessments, ConfigurationError } = pkg;
  const { startEmulator } = emu;
  const emulator = await startEmulator({ port: 0 });
  const platform = createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url });
  const course = await platform.courses.create({ name: "Packed" });
  const ok = typeof oralAssessments === "function" && typeof ConfigurationError === "function";
  console.log(JSON.stringify({ name: course.data.name, level: course.data.level, ok }));
  platform.close();
  await emulator.close();
`;

describe("the npm pack tarball", () => {
  it("loads with import, and its emulator subpath works", () => {
    writeFileSync(join(dir, "esm.mjs"), `import * as pkg from "express-oral-assessments"; import * as emu from "express-oral-assessments/emulator";\n${USE}`);
    expect(JSON.parse(node(["esm.mjs"]).trim())).toEqual({ name: "Packed", level: "undergraduate", ok: true });
  });

  it("loads with require()", () => {
    writeFileSync(join(dir, "cjs.cjs"), `const pkg = require("express-oral-assessments"); const emu = require("express-oral-assessments/emulator");\n(async () => {${USE}})();`);
    expect(JSON.parse(node(["cjs.cjs"]).trim().split("\n").pop() ?? "")).toEqual({ name: "Packed", level: "undergraduate", ok: true });
  });

  it("ships type declarations for both entry points", () => {
    const pkgDir = join(dir, "node_modules", "express-oral-assessments");
    expect(existsSync(join(pkgDir, "dist", "index.d.ts"))).toBe(true);
    expect(existsSync(join(pkgDir, "dist", "emulator", "index.d.ts"))).toBe(true);
    expect(existsSync(join(pkgDir, "src"))).toBe(false);
  });
});
