/**
 * `npm run build`: dist/ as the package ships it (docs/development.md, "The build").
 *
 * - `dist/index.cjs`, `dist/emulator/index.cjs`, `dist/cli.cjs` and `dist/chunks/`: the code,
 *   CommonJS, bundled by esbuild (scripts/build-js.ts);
 * - `dist/index.js`, `dist/emulator/index.js`: ES modules re-exporting the same code, and
 *   `dist/cli.js`, the `express-oral-assessments` command;
 * - `dist/index.d.cts`, `dist/emulator/index.d.cts` (+ `dist/chunks/*.d.cts`): the types,
 *   rolled up by rollup-plugin-dts from tsc's declarations (scripts/build-types.ts), and
 *   `dist/index.d.ts`, `dist/emulator/index.d.ts` re-exporting them for `import`.
 *
 * `build({ clean: false })` (the tests' global setup) writes over dist/ in place and then
 * deletes the files this build did not write (old chunks), so a test reading dist/
 * meanwhile finds its files.
 */
import { readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildJs, type Entry } from "./build-js.js";
import { buildTypes } from "./build-types.js";

/** The entry points, as package.json's `exports` and `bin` name them. */
export const ENTRIES: Entry[] = [
  { source: "src/index.ts", out: "index" },
  { source: "src/emulator/index.ts", out: "emulator/index" },
  { source: "src/cli.ts", out: "cli" },
];
/** The entry whose `.js` is the command (package.json `bin`); it has no types. */
export const BIN = "cli";

/** The files every build writes (chunks aside, whose names carry a hash). */
export const FIXED_OUTPUTS = ENTRIES.flatMap(({ out }) => out === BIN ? [`${out}.cjs`, `${out}.js`] : [`${out}.cjs`, `${out}.js`, `${out}.d.cts`, `${out}.d.ts`]);

export interface BuildResult {
  files: string[];
  /** tsc's type errors, empty when there are none (`npm run build` fails on them). */
  tscProblems: string;
}

export async function build(root: string, { clean }: { clean: boolean }): Promise<BuildResult> {
  const dist = join(root, "dist");
  if (clean) rmSync(dist, { recursive: true, force: true });
  const js = await buildJs(root, dist, ENTRIES, BIN);
  const types = await buildTypes(root, dist, ENTRIES.filter(({ out }) => out !== BIN));
  const files = [...js.files, ...types.files].map((file) => file.split("\\").join("/"));
  const written = new Set(files);
  // Deepest first, so that a folder left empty (an older layout's) goes after its files.
  const found = readdirSync(dist, { recursive: true, encoding: "utf8" }).map((f) => f.split("\\").join("/")).sort().reverse();
  for (const file of found) {
    if (written.has(file)) continue;
    const path = join(dist, file);
    if (!statSync(path).isDirectory()) rmSync(path);
    else if (readdirSync(path).length === 0) rmdirSync(path);
  }
  return { files, tscProblems: types.tscProblems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(import.meta.dirname, "..");
  const { files, tscProblems } = await build(root, { clean: true });
  if (tscProblems) {
    process.stderr.write(tscProblems);
    process.exit(1);
  }
  process.stdout.write(`dist/: ${files.length} files\n`);
}
