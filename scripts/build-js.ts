/**
 * The package's JavaScript: one CommonJS implementation, and ES module entry points that
 * re-export it (docs/development.md, "The build").
 *
 * esbuild bundles the entry points together with code splitting (so the main entry, the
 * emulator and the CLI share one copy of what they have in common, and a class is the
 * same class whichever entry point handed it out), as ES modules in memory; each file is
 * then turned into CommonJS on its own, its imports of the other files becoming
 * `require()`. Dependencies stay external (`packages: "external"`): the app's own copies
 * of express, zod, pg, … are used.
 *
 * Readable for a stack trace: names are kept (no identifier mangling) and lines are at most
 * LINE_LIMIT characters long (Node prints the whole source line of an uncaught error).
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import * as esbuild from "esbuild";

/** Node 20.19 is the oldest Node the package supports (package.json `engines`). */
const TARGET = "node20.19";

/** The longest line the JavaScript has; see the header. */
export const LINE_LIMIT = 120;

/** An entry point: its source, and its files under dist/ without the extension. */
export interface Entry { source: string; out: string }

/** The JavaScript files written, as paths under the output folder. */
export interface JsOutput { files: string[] }

/**
 * Bundles `entries` into `outDir`: `<out>.cjs` (the code) and `<out>.js` (an ES module
 * re-exporting it) per entry, shared code in `outDir/chunks/`. `bin` names the entry whose
 * `.js` starts the command line tool instead of re-exporting.
 */
export async function buildJs(root: string, outDir: string, entries: Entry[], bin: string): Promise<JsOutput> {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(entries.map((entry) => [entry.out, entry.source])),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: TARGET,
    packages: "external",
    outdir: outDir,
    // The ES module build is only a step: its imports already name the .cjs files.
    outExtension: { ".js": ".cjs" },
    chunkNames: "chunks/[name]-[hash]",
    charset: "utf8",
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  // A warning here (an `import.meta`, a missing export) would be a broken CommonJS file.
  if (result.warnings.length > 0) throw new Error(`esbuild warned:\n${(await esbuild.formatMessages(result.warnings, { kind: "warning" })).join("\n")}`);

  const files: string[] = [];
  const write = (file: string, text: string) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    files.push(relative(outDir, file));
  };
  for (const output of result.outputFiles) {
    const cjs = await esbuild.transform(output.text, {
      format: "cjs", target: TARGET, charset: "utf8", legalComments: "none", logLevel: "silent",
      minifyWhitespace: true, lineLimit: LINE_LIMIT,
    });
    if (cjs.warnings.length > 0) throw new Error(`esbuild warned on ${output.path}: ${cjs.warnings.map((w) => w.text).join("; ")}`);
    write(output.path, cjs.code);
  }

  for (const entry of entries) {
    const cjsFile = join(outDir, `${entry.out}.cjs`);
    const meta = result.metafile.outputs[relative(root, cjsFile).split("\\").join("/")];
    if (!meta) throw new Error(`esbuild wrote no ${cjsFile}`);
    const esm = join(outDir, `${entry.out}.js`);
    const from = `./${entry.out.split("/").pop()}.cjs`;
    if (entry.out === bin) {
      write(esm, `#!/usr/bin/env node\n// The command line tool; its code is ${from}.\nimport "${from}";\n`);
      chmodSync(esm, 0o755);
    } else {
      write(esm, esmFacade(from, meta.exports));
    }
  }
  return { files };
}

/** An ES module exporting the names `exports` of the CommonJS file `from`. */
function esmFacade(from: string, names: string[]): string {
  if (names.includes("default")) throw new Error(`${from} has a default export: the ES module facade does not carry one`);
  return [
    `// The ES module entry point: the same code as ${from} (one copy for import and require()).`,
    `import cjs from "${from}";`,
    `export const {\n${names.map((name) => `  ${name},`).join("\n")}\n} = cjs;`,
    "",
  ].join("\n");
}
