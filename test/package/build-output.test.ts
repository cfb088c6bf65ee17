/**
 * What the bundled build keeps for the people who read it (docs/development.md, "The
 * build"): the shipped declarations carry every TSDoc comment the sources give the public
 * API's exports and the properties of its declared types (what an editor shows on hover,
 * option defaults included), for `import` (.d.ts) and for `require()` (.d.cts) alike; and an error thrown through the shipped code names our
 * functions, with short source lines (Node prints the whole line of an uncaught error).
 * Reads dist/ as the global setup built it, the files `npm pack` ships (pack.test.ts).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** The doc comment of every export of the entry points, and of every property of an exported type, by `entry:Name.property`. */
function publicDocs(entries: Record<string, string>): Map<string, string> {
  const program = ts.createProgram(Object.values(entries), {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    strict: true, skipLibCheck: true, noEmit: true, types: ["node"],
  });
  const checker = program.getTypeChecker();
  const docs = new Map<string, string>();
  const doc = (symbol: ts.Symbol) => ts.displayPartsToString(symbol.getDocumentationComment(checker));
  for (const [entry, file] of Object.entries(entries)) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`no module for ${file}`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      docs.set(`${entry}:${exported.name}`, doc(symbol));
      if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class))) continue;
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      // An object's properties; a string's (a union of literals) are the standard library's.
      if (!(type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))) continue;
      for (const property of checker.getPropertiesOfType(type)) {
        // Declared in an object literal (a zod schema's shape, a record type inferred from it):
        // tsc writes no comment for such a property into any declaration file, bundled or not.
        if (property.declarations?.some((d) => ts.isPropertyAssignment(d) || ts.isShorthandPropertyAssignment(d))) continue;
        docs.set(`${entry}:${exported.name}.${property.name}`, doc(property));
      }
    }
  }
  return docs;
}

describe("the built package, as people read it", () => {
  it("keeps every TSDoc comment of the public API in the shipped types, for import and require()", () => {
    const fromSource = publicDocs({ main: join(root, "src", "index.ts"), emulator: join(root, "src", "emulator", "index.ts") });
    const documented = [...fromSource].filter(([, text]) => text !== "");
    // The comparison has something to compare: the options' defaults among them.
    expect(documented.length).toBeGreaterThan(300);
    expect(fromSource.get("main:OralAssessmentsOptions.loginUrl")).toMatch(/Default/);
    expect(fromSource.get("emulator:EmulatorOptions.port")).not.toBe("");
    // One program reads both (the libraries they import parsed once).
    const shipped = publicDocs({
      importMain: join(root, "dist", "index.d.ts"), importEmulator: join(root, "dist", "emulator", "index.d.ts"),
      requireMain: join(root, "dist", "index.d.cts"), requireEmulator: join(root, "dist", "emulator", "index.d.cts"),
    });
    const as = (prefix: string) => new Map([...shipped].flatMap(([key, text]) => {
      const [entry = "", name = ""] = key.split(/:(.*)/s);
      return entry.startsWith(prefix) ? [[`${entry.slice(prefix.length).toLowerCase()}:${name}`, text]] : [];
    }));
    const [forImport, forRequire] = [as("import"), as("require")];
    // The properties left out of the source's list are read from the shipped types' list too.
    const same = (shipped: Map<string, string>) => Object.fromEntries([...fromSource.keys()].map((key) => [key, shipped.get(key)]));
    expect(same(forImport)).toEqual(Object.fromEntries(fromSource));
    expect(same(forRequire)).toEqual(Object.fromEntries(fromSource));
  }, 60_000);

  it("names our functions in a stack trace, and Node prints a short source line for an uncaught error", () => {
    let stderr = "";
    try {
      execFileSync(process.execPath, ["-e", `require(${JSON.stringify(join(root, "dist", "index.cjs"))}).oralAssessments({})`], { encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      stderr = String((error as { stderr?: string }).stderr);
    }
    // Node's report: the file and line, the source line, a caret under the throw, then the error.
    const [where, sourceLine] = stderr.split("\n");
    expect(where).toMatch(/dist\/(index|chunks\/[\w-]+)\.cjs:\d+$/);
    expect(stderr).toContain("ConfigurationError: oralAssessments() is misconfigured");
    expect(stderr).toMatch(/\n {4}at Object\.oralAssessments \(.*dist\/index\.cjs:\d+:\d+\)\n/);
    expect(sourceLine!.length).toBeLessThan(400);
  });
});
