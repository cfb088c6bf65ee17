/**
 * How many option fields the package offers (issue 46, item 6: "options nobody needs …
 * merged or dropped with a deprecation"), counted from the types, so anyone can count
 * again: `node bench/option-fields.js [--list] [--json] [dir]` (`dir`: another checkout's
 * root, e.g. `git archive main src tsconfig.json | tar -x -C /tmp/main`).
 *
 * What counts as a field: every property a user can write in the options object of a
 * public factory (ROOTS), at any depth, found with the TypeScript compiler over `src/`:
 * - a property whose type is a plain options object (an object literal type, or a type of
 *   ours, not a function) counts once itself and its properties are walked too
 *   (`lti.loginLimit.perAddress.burst` is three fields below `lti`: `loginLimit`,
 *   `perAddress`, `burst`); an array of such objects is walked through its element
 *   (`lti.registrations[].issuer`); a union through its object members (`launchRecord`:
 *   `LaunchRecordOptions | false`);
 * - a property whose type is a thing the app builds or a function (`platform`, `store`,
 *   `fleet`, `logger`, `isInstructor`, a JWK) is one field, not walked (OPAQUE);
 * - `organizationClient` is one field: its fields are `createPlatformClient`'s, counted there;
 * - a property marked `@deprecated` is one field, counted apart and not walked (its
 *   fields are its replacement's: `prewarm` is `prepare`'s).
 * "Fields a new user sees" are the fields not deprecated.
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import ts from "typescript";

const args = process.argv.slice(2);
const root = args.find((a) => !a.startsWith("--")) ?? fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");

/** Each public factory and the type of its options object. */
const ROOTS = [
  ["oralAssessments", "src/router/shared/options.ts", "OralAssessmentsOptions"],
  ["createPlatformClient", "src/platform/types.ts", "PlatformClientOptions"],
  ["redisFleet", "src/fleet/options.ts", "RedisFleetOptions"],
  ["sqliteStore", "src/store/sqlite.ts", "SqliteStoreOptions"],
  ["postgresStore", "src/store/postgres.ts", "PostgresStoreOptions"],
  ["memoryStore", "src/store/memory.ts", "MemoryStoreOptions"],
  ["buildOpenApiDocument", "src/api/openapi.ts", "OpenApiDocumentOptions"],
  ["startEmulator", "src/emulator/types.ts", "EmulatorOptions"],
  ["createLmsEmulator", "src/emulator/lms/emulator-types.ts", "LmsEmulatorOptions"],
];
/** Types that are things, not options to walk (one field each). */
const OPAQUE = new Set(["PlatformClient", "Fleet", "OralStore", "LtiStore", "Logger", "MetricsRegistry", "LtiJsonWebKey", "PostgresPool", "RateBudget", "LmsUser", "CryptoKey"]);
/** Fields whose fields are another root's. */
const COUNTED_ELSEWHERE = new Set(["oralAssessments.organizationClient"]);

const program = ts.createProgram(ROOTS.map(([, file]) => join(root, file)), { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, noEmit: true });
const checker = program.getTypeChecker();

const ours = (type) => (type.getSymbol()?.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName.startsWith(src));
/** The type's name, through `Partial<…>` and the like (`Partial<Logger>` is a Logger). */
const nameOf = (type) => type.aliasTypeArguments?.length === 1 ? nameOf(type.aliasTypeArguments[0]) : type.aliasSymbol?.getName() ?? type.getSymbol()?.getName();

/** The object types a property's type is walked through, or undefined: a leaf. */
function objectsOf(type) {
  const flat = (t) => (t.isUnion() ? t.types.flatMap(flat) : checker.isArrayType(t) ? flat(checker.getTypeArguments(t)[0]) : [t]);
  const objects = [];
  for (const t of flat(type)) {
    if (!(t.flags & ts.TypeFlags.Object)) continue; // undefined, false, strings, numbers, literals
    if (t.getCallSignatures().length > 0 || OPAQUE.has(nameOf(t))) return undefined;
    if (t.getProperties().length > 0 && (ours(t) || t.getProperties().every((p) => (p.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName.startsWith(src))))) objects.push(t);
  }
  return objects.length > 0 ? objects : undefined;
}

const fields = [];
function walk(type, path, deprecatedAbove) {
  for (const p of type.getProperties()) {
    const decl = p.getDeclarations()?.[0];
    const name = `${path}.${p.getName()}`;
    if (fields.some((f) => f.name === name)) continue; // a union's members share a name
    const deprecated = deprecatedAbove || p.getJsDocTags().some((t) => t.name === "deprecated");
    const documented = ts.getJSDocCommentsAndTags(decl).length > 0;
    fields.push({ name, deprecated, documented });
    if (deprecated || COUNTED_ELSEWHERE.has(name)) continue;
    const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(p, decl));
    const isArray = (type.isUnion() ? type.types : [type]).some((t) => checker.isArrayType(t));
    for (const o of objectsOf(type) ?? []) walk(o, isArray ? `${name}[]` : name, deprecated);
  }
}

const perRoot = [];
for (const [factory, file, typeName] of ROOTS) {
  const sf = program.getSourceFile(join(root, file));
  const decl = sf?.statements.find((s) => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === typeName);
  if (!decl) throw new Error(`${typeName} not found in ${file}`);
  const before = fields.length;
  walk(checker.getTypeAtLocation(decl.name), factory, false);
  const mine = fields.slice(before);
  perRoot.push({ factory, type: typeName, fields: mine.length, deprecated: mine.filter((f) => f.deprecated).length });
}

const total = fields.length;
const deprecated = fields.filter((f) => f.deprecated);
const summary = { total, deprecated: deprecated.length, current: total - deprecated.length, undocumented: fields.filter((f) => !f.documented).map((f) => f.name), perRoot };
if (args.includes("--json")) {
  console.log(JSON.stringify({ ...summary, fields }, null, 2));
} else {
  for (const r of perRoot) console.log(`${r.factory.padEnd(22)} ${String(r.fields).padStart(4)} fields, ${r.deprecated} deprecated  (${r.type})`);
  console.log(`total ${total} fields: ${total - deprecated.length} a new user sees, ${deprecated.length} deprecated (${deprecated.map((f) => f.name).join(", ")})`);
  if (summary.undocumented.length > 0) console.log(`without a TSDoc comment: ${summary.undocumented.join(", ")}`);
  if (args.includes("--list")) for (const f of fields) console.log(`${f.deprecated ? "D" : " "} ${f.name}`);
}
