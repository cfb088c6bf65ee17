/**
 * The team's "no file over 300 lines" rule (issue 30), across the code: every source,
 * test, bench, build and example-app script git knows of (tracked, or new and not ignored), so a
 * file that grows past the limit fails here, named with its length, instead of in review.
 * A long file is split by concept (see docs/development.md's Layout), not in halves.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MAX_LINES = 300;
const FOLDERS = ["src", "test", "bench", "example-app", "scripts"];
const CODE = /\.(ts|js|mjs|cjs)$/;
const root = fileURLToPath(new URL("..", import.meta.url));

/** Lines as `wc -l` counts them, plus a last line without a newline. */
const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

function codeFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", ...FOLDERS], { cwd: root, encoding: "utf8" });
  // A tracked file deleted in the working tree is listed by --cached but is no longer there.
  return [...new Set(listed.split("\0"))].filter((file) => CODE.test(file) && existsSync(join(root, file))).sort();
}

describe("file size", () => {
  it(`keeps every .ts/.js/.mjs/.cjs file under ${FOLDERS.join(", ")} at ${MAX_LINES} lines or fewer`, () => {
    const files = codeFiles();
    // The listing works: every folder has files (a broken git call would pass with none).
    for (const folder of FOLDERS) expect(files.some((file) => file.startsWith(`${folder}/`)), `no files listed under ${folder}/`).toBe(true);
    const tooLong = files
      .map((file) => ({ file, lines: lineCount(readFileSync(join(root, file), "utf8")) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(tooLong, `split these by concept into files of at most ${MAX_LINES} lines`).toEqual([]);
  });
});
