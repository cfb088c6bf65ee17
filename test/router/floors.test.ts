/**
 * The router's floors point one way (docs/development.md, "Layout"): its sub-folders never
 * import one another both ways, never import the files beside `index.ts` (which compose
 * them), and `shared/` imports no feature folder except the metrics options' type.
 * Read from the sources, so a new import that runs back up fails here with its file named.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../../src/router");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []);
}

/** The folder a router file lives in, or "(top)" for the files beside index.ts. */
const floorOf = (file: string): string => {
  const parts = relative(ROOT, file).split("/");
  return parts.length > 1 ? parts[0]! : "(top)";
};

/** Every import between two different floors of the router, as "from -> to: file => file". */
function crossings(): Array<{ from: string; to: string; edge: string }> {
  const found: Array<{ from: string; to: string; edge: string }> = [];
  for (const file of sources(ROOT)) {
    for (const m of readFileSync(file, "utf8").matchAll(/from\s+["'](\.[^"']+)["']/g)) {
      const target = normalize(join(dirname(file), m[1]!)).replace(/\.js$/, ".ts");
      if (!target.startsWith(ROOT + "/")) continue;
      const from = floorOf(file);
      const to = floorOf(target);
      if (from !== to) found.push({ from, to, edge: `${relative(ROOT, file)} => ${relative(ROOT, target)}` });
    }
  }
  return found;
}

describe("the router's floors", () => {
  const all = crossings();

  it("reads the imports it checks (the composer imports every feature folder)", () => {
    const fromTop = new Set(all.filter((c) => c.from === "(top)").map((c) => c.to));
    for (const folder of ["shared", "organization", "launch", "prepare", "instructor", "records", "metrics", "meta"]) {
      expect(fromTop, folder).toContain(folder);
    }
  });

  it("has no sub-folder importing the files beside index.ts", () => {
    expect(all.filter((c) => c.to === "(top)").map((c) => c.edge)).toEqual([]);
  });

  it("has no two sub-folders importing each other", () => {
    const pairs = new Set(all.map((c) => `${c.from} -> ${c.to}`));
    const twoWay = all.filter((c) => c.from !== "(top)" && pairs.has(`${c.to} -> ${c.from}`)).map((c) => c.edge);
    expect(twoWay).toEqual([]);
  });

  it("keeps shared/ under every feature (one type-only import of the metrics options allowed)", () => {
    const up = all.filter((c) => c.from === "shared").map((c) => c.edge);
    expect(up.length, up.join("\n")).toBeLessThanOrEqual(1);
  });
});
