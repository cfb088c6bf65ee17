/**
 * The package's type declarations: one set, rolled up to what the entry points export.
 *
 * `tsc -p tsconfig.build.json` writes a declaration per source file (and type-checks) to a
 * temporary folder; rollup-plugin-dts follows each entry point's exports through them
 * and writes one `.d.cts` per entry point (shared declarations in `chunks/`), with every
 * TSDoc comment of what it keeps. They describe the CommonJS files (`.d.cts` is CommonJS
 * whatever package.json's `type` says), and each entry's `.d.ts` re-exports its `.d.cts`
 * for `import`, as the `.js` re-exports the `.cjs`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { rollup, type Plugin } from "rollup";
import { dts } from "rollup-plugin-dts";
import ts from "typescript";
import type { Entry } from "./build-js.js";

export interface TypesOutput {
  files: string[];
  /** What tsc reported (type errors); empty when it found none. */
  tscProblems: string;
}

/** Writes `<out>.d.cts` and `<out>.d.ts` per entry into `outDir`. */
export async function buildTypes(root: string, outDir: string, entries: Entry[]): Promise<TypesOutput> {
  const declarations = mkdtempSync(join(tmpdir(), "eoa-declarations-"));
  try {
    let tscProblems = "";
    try {
      execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json", "--outDir", declarations], { cwd: root, stdio: "pipe" });
    } catch (error) {
      // tsc writes the declarations in spite of type errors; the caller decides what they mean.
      tscProblems = String((error as { stdout?: Buffer }).stdout ?? error);
    }
    const bundle = await rollup({
      input: Object.fromEntries(entries.map((entry) => [entry.out, join(declarations, relative("src", entry.source)).replace(/\.ts$/, ".d.ts")])),
      plugins: [withoutFileComments(), dts()],
      // Packages (express, zod, node:crypto, …) are the app's: imported, not copied.
      external: (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith(declarations),
      onwarn: (warning) => { throw new Error(`rollup-plugin-dts: ${warning.message}`); },
    });
    const { output } = await bundle.generate({ format: "es", entryFileNames: "[name].d.cts", chunkFileNames: "chunks/[name]-[hash].d.cts" });
    await bundle.close();

    const files: string[] = [];
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(outDir, file)), { recursive: true });
      writeFileSync(join(outDir, file), text);
      files.push(file);
    };
    for (const chunk of output) {
      if (chunk.type !== "chunk") continue;
      // Rollup names a sibling declaration file by its .js; the .d.cts describes the .cjs.
      write(chunk.fileName, chunk.code.replace(/(from\s+["']\.{1,2}\/[^"']*?)(?:\.d)?\.(?:c?js)(["'])/g, "$1.cjs$2"));
    }
    for (const entry of entries) {
      const name = entry.out.split("/").pop();
      write(`${entry.out}.d.ts`, `// Types for import: the same declarations as ./${name}.d.cts (one set for import and require()).\nexport * from "./${name}.cjs";\n`);
    }
    return { files, tscProblems };
  } finally {
    rmSync(declarations, { recursive: true, force: true });
  }
}


/**
 * Drops each declaration file's opening comment (what the file is, notes for us): in a
 * rolled-up file it would land right before the first declaration kept from that file and
 * become its TSDoc. A comment attached to a first statement that declares something (no
 * import, no blank line between) is its TSDoc and stays, as do `/// <reference …/>` lines.
 */
function withoutFileComments(): Plugin {
  return {
    name: "without-file-comments",
    transform(code, id) {
      if (!id.endsWith(".d.ts")) return null;
      const file = ts.createSourceFile(id, code, ts.ScriptTarget.Latest, false);
      const first = file.statements[0];
      if (!first) return null;
      const start = first.getStart(file);
      const comments = ts.getLeadingCommentRanges(code, 0) ?? [];
      const importing = ts.isImportDeclaration(first) || ts.isImportEqualsDeclaration(first) || (ts.isExportDeclaration(first) && first.moduleSpecifier !== undefined);
      const attached = importing ? undefined : comments.at(-1);
      const kept = comments.filter((c) => code.startsWith("///", c.pos) || (c === attached && !/\n\s*\n/.test(code.slice(c.end, start))));
      return { code: kept.map((c) => `${code.slice(c.pos, c.end)}\n`).join("") + code.slice(start), map: null };
    },
  };
}
