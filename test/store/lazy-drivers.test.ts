import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * Runs a script in a fresh Node process (with tsx for the TypeScript sources) and returns
 * which database drivers it had loaded, as seen in the CommonJS module cache.
 */
function driversLoadedBy(body: string): string[] {
  const script = `
    import { createRequire } from "node:module";
    const require = createRequire(import.meta.url);
    ${body}
    const loaded = new Set(Object.keys(require.cache).map((k) => /node_modules\\/(pg|better-sqlite3)\\//.exec(k)?.[1]).filter(Boolean));
    console.log(JSON.stringify([...loaded].sort()));
  `;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1) ?? "[]") as string[];
}

describe("database drivers are loaded on first use, not on import", () => {
  it("importing the stores (and creating them) loads neither better-sqlite3 nor pg", () => {
    expect(driversLoadedBy(`
      const m = await import("./src/store/index.ts");
      m.sqliteStore({ filename: ":memory:" });
      m.postgresStore({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
    `)).toEqual([]);
  });

  it("using the SQLite store loads better-sqlite3, and only that", () => {
    expect(driversLoadedBy(`
      const m = await import("./src/store/index.ts");
      const s = m.sqliteStore({ filename: ":memory:" });
      await s.init();
      await s.close();
    `)).toEqual(["better-sqlite3"]);
  });
});
