/**
 * Whether dist/ is as `npm run build` would make it from the sources now, so that
 * global-setup can skip its two `tsc` runs (a tenth of the suite on a 2-core machine)
 * when CI, or the developer, has just built. Fresh means: for both builds, every file
 * the tsconfig compiles has its emitted `.js`, written after that source and after every
 * tsconfig and package.json were last changed. The file lists come from TypeScript's own
 * reading of the tsconfigs (includes, excludes, extends), not from a copy of them here.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

/** The builds as package.json's `build` script runs them. */
export const BUILD_CONFIGS = ["tsconfig.build.json", "tsconfig.build.cjs.json"] as const;

const mtime = (file: string): number => statSync(file).mtimeMs;

/** The `.js` files `tsc -p config` emits, each with the source it comes from. */
function emittedFiles(root: string, config: string): { source: string; output: string }[] {
  const path = join(root, config);
  const read = ts.readConfigFile(path, (f) => ts.sys.readFile(f));
  if (read.error) throw new Error(`cannot read ${config}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(path), undefined, path);
  const { outDir, rootDir } = parsed.options;
  if (!outDir || !rootDir) throw new Error(`${config} sets no outDir or rootDir`);
  return parsed.fileNames
    .filter((source) => source.endsWith(".ts") && !source.endsWith(".d.ts"))
    .map((source) => ({ source, output: join(outDir, relative(rootDir, source)).replace(/\.ts$/, ".js") }));
}

/** The reason dist/ must be built again, or undefined when it is fresh. */
export function staleDistReason(root: string): string | undefined {
  const configs = ["tsconfig.json", ...BUILD_CONFIGS, "package.json"].map((f) => join(root, f));
  const configsChangedAt = Math.max(...configs.map(mtime));
  if (!existsSync(join(root, "dist", "cjs", "package.json"))) return "dist/cjs/package.json is missing";
  for (const config of BUILD_CONFIGS) {
    for (const { source, output } of emittedFiles(root, config)) {
      if (!existsSync(output)) return `${relative(root, output)} is missing`;
      if (mtime(output) < Math.max(mtime(source), configsChangedAt)) return `${relative(root, output)} is older than ${relative(root, source)} or a tsconfig`;
    }
  }
  return undefined;
}
