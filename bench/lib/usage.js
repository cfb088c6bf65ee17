/**
 * `--help` for the bench's entry points: prints the entry file's opening comment, which
 * is its usage (options, parts, targets), so the two cannot drift apart.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Writes the opening `/** … *\/` comment of the file at `moduleUrl` (its import.meta.url) to stdout, without the comment marks. */
export function printUsage(moduleUrl) {
  const source = readFileSync(fileURLToPath(moduleUrl), "utf8");
  const comment = /^\/\*\*\n([\s\S]*?)\n \*\//.exec(source)?.[1] ?? "";
  process.stdout.write(`${comment.split("\n").map((line) => line.replace(/^ \* ?/, "")).join("\n")}\n`);
}
