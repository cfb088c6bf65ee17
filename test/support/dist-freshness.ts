/**
 * Whether dist/ is as `npm run build` would make it from the sources now, so that
 * global-setup can skip the build (a tsc run and two bundlers, several seconds on a 2-core
 * machine) when CI, or the developer, has just built. The JavaScript and the declarations
 * are bundles, each made from many sources: fresh means every file every build writes
 * (scripts/build.ts's FIXED_OUTPUTS) exists and was written after the last change to any
 * file or folder under src/ (a folder changes when a file in it is added, renamed or
 * deleted), to the build scripts, the tsconfigs or package.json.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FIXED_OUTPUTS } from "../../scripts/build.js";

/** What the build reads besides src/. */
export const BUILD_INPUTS = ["package.json", "tsconfig.json", "tsconfig.build.json", "scripts"] as const;

const mtime = (path: string): number => statSync(path).mtimeMs;

/** The newest change under `path` (itself included), with the path it was made to. */
function newest(root: string, path: string): { path: string; at: number } {
  let latest = { path, at: mtime(join(root, path)) };
  if (!statSync(join(root, path)).isDirectory()) return latest;
  for (const name of readdirSync(join(root, path), { recursive: true, encoding: "utf8" })) {
    const file = join(path, name);
    const at = mtime(join(root, file));
    if (at > latest.at) latest = { path: file, at };
  }
  return latest;
}

/** The reason dist/ must be built again, or undefined when it is fresh. */
export function staleDistReason(root: string): string | undefined {
  const inputs = ["src", ...BUILD_INPUTS].filter((path) => existsSync(join(root, path))).map((path) => newest(root, path));
  const latest = inputs.reduce((a, b) => (b.at > a.at ? b : a));
  for (const output of FIXED_OUTPUTS) {
    const file = join(root, "dist", output);
    if (!existsSync(file)) return `dist/${output} is missing`;
    if (mtime(file) < latest.at) return `dist/${output} is older than ${latest.path.split("\\").join("/")}`;
  }
  return undefined;
}
