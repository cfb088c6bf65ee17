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
  it("importing the package (and creating its stores) loads neither better-sqlite3 nor pg", () => {
    expect(driversLoadedBy(`
      const m = await import("./src/index.ts");
      m.sqliteStore({ filename: ":memory:" });
      m.postgresStore({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
    `)).toEqual([]);
  });

  it("using the SQLite store loads better-sqlite3, and only that", () => {
    expect(driversLoadedBy(`
      const m = await import("./src/index.ts");
      const s = m.sqliteStore({ filename: ":memory:" });
      await s.init();
      await s.close();
    `)).toEqual(["better-sqlite3"]);
  });
});

describe("a missing pg", () => {
  it("is one ConfigurationError telling to install pg, when the store makes its own pool", () => {
    // A resolve hook makes `pg` unresolvable, as on an install without the optional peer.
    const script = `
      import { register } from "node:module";
      register("data:text/javascript," + encodeURIComponent(
        "export async function resolve(s, c, next) { if (s === 'pg') { const e = new Error('Cannot find package pg'); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return next(s, c); }"));
      const m = await import("./src/index.ts");
      const s = m.postgresStore({ connectionString: "postgres://nobody:secretpw@127.0.0.1:1/none" });
      const error = await s.init().catch((e) => e);
      console.log(JSON.stringify({ name: error.name, text: String(error), problems: error.problems }));
    `;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    const result = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { name: string; text: string; problems: { option: string; fix: string }[] };
    expect(result.name).toBe("ConfigurationError");
    expect(result.problems).toEqual([expect.objectContaining({ option: "connectionString", fix: expect.stringMatching(/npm i pg/) })]);
    expect(result.text).not.toContain("secretpw");
  });
});
