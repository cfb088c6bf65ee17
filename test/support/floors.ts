/**
 * The folders ("floors") of one source tree and the imports between them, read from the
 * sources, for the floors tests (test/router/floors.test.ts, test/lti/floors.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/** Every `.ts` file below `dir`. */
export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []);
}

/** The folder of `root` a file lives in, or "(top)" for the files directly in `root`. */
export function floorOf(root: string, file: string): string {
  const parts = relative(root, file).split("/");
  return parts.length > 1 ? parts[0]! : "(top)";
}

/** Every import between two different floors of `root`, as from, to and "file => file". */
export function crossings(root: string): Array<{ from: string; to: string; edge: string }> {
  const found: Array<{ from: string; to: string; edge: string }> = [];
  for (const file of sources(root)) {
    for (const m of readFileSync(file, "utf8").matchAll(/from\s+["'](\.[^"']+)["']/g)) {
      const target = normalize(join(dirname(file), m[1]!)).replace(/\.js$/, ".ts");
      if (!target.startsWith(root + "/")) continue;
      const from = floorOf(root, file);
      const to = floorOf(root, target);
      if (from !== to) found.push({ from, to, edge: `${relative(root, file)} => ${relative(root, target)}` });
    }
  }
  return found;
}
