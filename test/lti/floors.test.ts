/**
 * src/lti's floors (docs/development.md, "Layout"): its folders are grouped by flow and
 * stacked, and a file imports only its own folder and the folders below it. No folder
 * imports the two files on top (`routes.ts` mounts the routes, `launch.ts` dispatches a
 * verified launch to every flow), so no loop of any length can form. Read from the
 * sources: an import that runs up fails here with its file named.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { crossings as crossingsOf, floorOf as floorIn, sources } from "../support/floors.js";

const ROOT = join(__dirname, "../../src/lti");
const floorOf = (file: string) => floorIn(ROOT, file);
const crossings = () => crossingsOf(ROOT);

/** Top to bottom: each folder may import the ones after it. */
const FLOORS = ["placement", "registration", "gradebook", "services", "launch", "settings", "lms", "options", "shared"];
/** About a dozen files a folder: past it, a folder wants splitting by flow. */
const MOST_FILES = 13;

describe("src/lti's floors", () => {
  const all = crossings();
  const rank = (floor: string) => (floor === "(top)" ? -1 : FLOORS.indexOf(floor));

  it("has only the folders listed, and two files on top", () => {
    const folders = readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(folders).toEqual([...FLOORS].sort());
    expect(sources(ROOT).filter((f) => floorOf(f) === "(top)").map((f) => relative(ROOT, f)).sort()).toEqual(["launch.ts", "routes.ts"]);
  });

  it("reads the imports it checks (the top imports every folder)", () => {
    const fromTop = new Set(all.filter((c) => c.from === "(top)").map((c) => c.to));
    for (const folder of FLOORS) expect(fromTop, folder).toContain(folder);
  });

  it("has no import running up: each folder imports only the folders below it", () => {
    expect(all.filter((c) => rank(c.from) >= rank(c.to)).map((c) => `${c.from} -> ${c.to}: ${c.edge}`)).toEqual([]);
  });

  it("is described folder by folder in docs/development.md's layout, in this order", () => {
    const doc = readFileSync(join(__dirname, "../../docs/development.md"), "utf8");
    const section = doc.slice(doc.indexOf("- `src/lti/`"), doc.indexOf("- `src/router/`"));
    const named = [...section.matchAll(/^ {2}- `([a-z-]+)\/`/gm)].map((m) => m[1]);
    expect(named).toEqual(FLOORS);
  });

  it(`keeps each folder to ${MOST_FILES} files at most`, () => {
    const counts = new Map<string, number>();
    for (const f of sources(ROOT)) counts.set(floorOf(f), (counts.get(floorOf(f)) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > MOST_FILES)).toEqual([]);
  });
});
