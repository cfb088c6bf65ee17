/**
 * The router's floors point one way (docs/development.md, "Layout"): its sub-folders never
 * import one another in a loop (two folders both ways, or three or more around a circle),
 * never import the files beside `index.ts` (which compose them), and `shared/` imports no
 * feature folder.
 * Read from the sources, so a new import that runs back up fails here with its file named.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { crossings as crossingsOf } from "../support/floors.js";

const ROOT = join(__dirname, "../../src/router");
const crossings = () => crossingsOf(ROOT);

/** The folders that reach one another through imports (each loop's folders, sorted; Tarjan's strongly connected components). */
function folderLoops(edges: Array<{ from: string; to: string }>): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) next.set(from, (next.get(from) ?? new Set()).add(to));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const loops: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do { w = stack.pop()!; component.push(w); } while (w !== v);
    if (component.length > 1) loops.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return loops;
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

  it("has no sub-folders importing one another in a loop, of two folders or more", () => {
    const loops = folderLoops(all.filter((c) => c.from !== "(top)"));
    expect(loops.map((loop) => loop.join(" -> "))).toEqual([]);
  });

  it("sees a loop of three folders (the check itself works)", () => {
    const made = [["shared", "metrics"], ["metrics", "prepare"], ["prepare", "shared"], ["launch", "shared"]].map(([from, to]) => ({ from: from!, to: to!, edge: "" }));
    expect(folderLoops(made)).toEqual([["metrics", "prepare", "shared"]]);
  });

  it("keeps shared/ under every feature", () => {
    expect(all.filter((c) => c.from === "shared").map((c) => c.edge)).toEqual([]);
  });
});
