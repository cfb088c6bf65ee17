/**
 * The docs' relative links lead somewhere: every `[text](path#anchor)` in README.md and
 * docs/**\/*.md names a file that exists, and its `#anchor` (when it has one and the
 * target is markdown) names a heading there, slugged as GitHub does. Run by `npm test`,
 * so a renamed doc or heading cannot leave a dead link behind. No dependency: a link is
 * found with a regular expression outside fenced and inline code.
 *
 * The published package holds only what package.json's `files` lists (README.md and the
 * user docs, not docs/lab/, src/ or the example app): a packed doc's relative link must
 * lead to a packed file too, or be an absolute address. npm itself says what it packs.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

/** README.md and every markdown file under docs/, as paths from the repository root. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name));
  return ["README.md", ...docs].sort();
}

/** The text outside fenced code blocks, inline code removed (a link shown as code is no link). */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const opener = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      lines.push("");
      continue;
    }
    lines.push(fence === undefined ? line.replace(/`+[^`]*`+/g, "") : "");
  }
  return lines;
}

/** GitHub's heading id: lower-case, punctuation dropped except `-` and `_`, each space a `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link's text only
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\p{M} _-]/gu, "").replace(/ /g, "-");
}

const anchorCache = new Map<string, Set<string>>();

/** Every anchor a markdown file offers: its headings' slugs (repeats get -1, -2, …) and HTML ids. */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

interface Link { file: string; line: number; target: string }

/** The relative links of one markdown file (web addresses, `mailto:` and the like are not checked). */
function linksOf(file: string): Link[] {
  const links: Link[] = [];
  prose(readFileSync(join(root, file), "utf8")).forEach((text, i) => {
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line: i + 1, target });
    }
  });
  return links;
}

/** Why a link is broken, or undefined when it leads somewhere. */
function brokenBecause(link: Link): string | undefined {
  const hash = link.target.indexOf("#");
  const path = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
  const file = path === "" ? join(root, link.file) : resolve(dirname(join(root, link.file)), path);
  if (relative(root, file).startsWith("..")) return "leads outside the repository";
  if (!existsSync(file)) return "names no file";
  if (anchor === undefined || !file.endsWith(".md") || statSync(file).isDirectory()) return undefined;
  if (!anchorsOf(file).has(anchor)) return `names no heading of ${relative(root, file)}`;
  return undefined;
}

describe("the docs' links", () => {
  const files = markdownFiles();

  it("finds the docs and their links", () => {
    expect(files).toContain("README.md");
    expect(files).toContain(join("docs", "development.md"));
    expect(files.flatMap(linksOf).length).toBeGreaterThan(20);
  });

  it("slugs headings as GitHub does", () => {
    expect(slug("What `.ci/run` does")).toBe("what-cirun-does");
    expect(slug("Two builds: ESM and CommonJS")).toBe("two-builds-esm-and-commonjs");
    expect(slug("TypeScript ~6.0")).toBe("typescript-60");
    expect(slug("snake_case and dash-ed, [a link](x.md)")).toBe("snake_case-and-dash-ed-a-link");
  });

  it.each(files)("every relative link in %s leads to a file and heading that exist", (file) => {
    const broken = linksOf(file).flatMap((link) => {
      const why = brokenBecause(link);
      return why ? [`${link.file}:${link.line}: (${link.target}) ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });
});

/** The files `npm pack` would put in the tarball, as paths from the repository root (dist/ need not be built). */
function packedFiles(): Set<string> {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set((pack?.files ?? []).map((f) => f.path));
}

describe("the packed docs' links", () => {
  const packed = packedFiles();
  const packedDocs = [...packed].filter((file) => file.endsWith(".md")).sort();

  it("packs README.md and the user docs, the LMS pages among them, and no lab note (measurement diaries live in docs/lab/) nor the contributors' guide", () => {
    expect(packedDocs).toContain("README.md");
    expect(packedDocs).toContain("docs/lti.md");
    expect(packedDocs).toContain("docs/lms/canvas.md");
    // docs/development.md is about working on the repository: no use in an app's node_modules.
    const userDocs = markdownFiles().map((file) => file.split("\\").join("/")).filter((file) => !file.startsWith("docs/lab/") && file !== "docs/development.md");
    expect(packedDocs).toEqual(userDocs);
    // The lab notes by name, wherever they would sit: benchmark figures, soak runs, the fleet's diary.
    const labNotes = ["benchmarks.md", "soak.md", ...readdirSync(join(root, "docs", "lab"))];
    expect([...packed].filter((file) => file.startsWith("docs/lab/") || labNotes.includes(file.split("/").pop() ?? ""))).toEqual([]);
  });

  it.each(packedDocs)("every relative link in packed %s leads to a packed file", (file) => {
    const outside = linksOf(file).flatMap((link) => {
      const hash = link.target.indexOf("#");
      const path = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash));
      if (path === "") return [];
      const target = relative(root, resolve(dirname(join(root, link.file)), path)).split("\\").join("/");
      return packed.has(target) ? [] : [`${link.file}:${link.line}: (${link.target}) is not in the package`];
    });
    expect(outside).toEqual([]);
  });
});
