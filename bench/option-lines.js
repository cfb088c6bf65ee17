/**
 * How many lines read options (issue 30, item 2: "option-reading code < 900 lines"), so
 * the figure can be measured again by anyone: `node bench/option-lines.js [--json] [dir]`
 * (`dir`: another checkout's root, e.g. `git archive main src | tar -x -C /tmp/main`).
 *
 * Which files: found, not listed by hand.
 * - Whole files: every `src/**` file named `options.ts`, `…-options.ts`, `settings.ts`,
 *   `…-settings.ts` or `defaults.ts` (except those in NOT_OPTIONS, which read something else), and the two
 *   core files every reader uses (`core/option-schema.ts`, `core/deprecation.ts`).
 * - Parts of files: any other file that reads options (imports `core/option-schema.js` or
 *   `ProblemList`, calls `readOptions`/`readStoreOptions`) or declares a public option type
 *   counts only its public option types and, when it reads options, the top-level
 *   declarations that do
 *   (PART_NAME: `…Options`, `…Schema`, `read…`, `resolve…`, `check…`, `…Settings`,
 *   `DEFAULT_…`).
 *
 * Columns: lines (all), code (not blank, not comment), and "types": the lines of the
 * public option types (PUBLIC_TYPES) with their TSDoc, a subset of lines. Totals are
 * printed with and without them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");

/** Found by the rules below, but read something else. */
const NOT_OPTIONS = new Map([
  ["src/lti/options/deep-link-settings.ts", "reads the LMS's deep_linking_settings claim, not an option"],
  ["src/router/organization/answer-checks.ts", "checks a resolver's answer per request, not an option"],
]);
const CORE = ["src/core/option-schema.ts", "src/core/deprecation.ts"];
/**
 * The public option types: each factory's options object (the package's exports) and the
 * public types it is made of.
 */
const PUBLIC_TYPES = new Set([
  "PlatformClientOptions", "OralAssessmentsOptions", "PrepareOptions", "PrewarmOptions", "LaunchRecordOptions", "LiveViewOptions", "LaunchExportOptions",
  "MetricsOptions", "LaunchLimitOptions", "CircuitBreakerOptions", "LtiOptions", "LtiDynamicRegistrationOptions", "LtiRosterOptions",
  "GradebookOptions", "LtiLoginLimitOptions", "RedisFleetOptions", "SqliteStoreOptions", "PostgresStoreOptions", "MemoryStoreOptions", "EmulatorOptions",
  "EmulatorOrganizationOptions", "LaunchContext", "LtiToolKey", "LtiDeployment", "LtiRegistration", "LtiEmailLookup", "LtiStudentFields", "LinkedTo",
  "CanLinkContext", "CanLink", "OrganizationFor", "MetricsRegistry", "FleetSecret", "LaunchLimitSettings", "CircuitBreakerSettings",
]);
const PART_NAME = /Options$|Schema$|^read[A-Z]|^resolve[A-Z]|^check[A-Z]|Settings$|^DEFAULT_|_DEFAULTS$/;
const READS_OPTIONS = /core\/option-schema\.js|\bProblemList\b|\breadOptions\(|\breadStoreOptions\(/;
const WHOLE = /(^|[-/])(options|settings|defaults)\.ts$/;

const files = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));

/** Which lines are code (not blank, not inside a comment). */
function codeLines(lines) {
  let inBlock = false;
  return lines.map((line) => {
    let rest = line.trim();
    let code = false;
    while (rest) {
      if (inBlock) {
        const end = rest.indexOf("*/");
        if (end < 0) break;
        inBlock = false;
        rest = rest.slice(end + 2).trim();
      } else if (rest.startsWith("//")) break;
      else if (rest.startsWith("/*")) {
        inBlock = true;
        rest = rest.slice(2);
      } else {
        code = true;
        const start = rest.indexOf("/*");
        if (start < 0) break;
        rest = rest.slice(start);
      }
    }
    return code;
  });
}

const DECLARATION = /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:const|let|function|interface|type|class|enum)\s+(\w+)/;

/** The file's top-level declarations: name, first line (its TSDoc included) and last line. */
function declarations(lines) {
  const out = [];
  let docStart;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("/**")) docStart ??= i;
    const found = DECLARATION.exec(line);
    if (found) {
      out.push({ name: found[1], start: docStart ?? i, end: lines.length - 1 });
      docStart = undefined;
    } else if (/^(import|export \{|export \*|export type \{)/.test(line)) docStart = undefined;
    else if (!line.startsWith(" ") && !line.startsWith("/**") && !line.startsWith(" *") && line.trim() && !line.startsWith("}") && !line.startsWith(")") && !line.startsWith("]")) docStart = undefined;
  }
  // Each ends before the next one (its TSDoc included), trailing blank lines left out.
  for (let k = 0; k < out.length; k++) {
    let end = k + 1 < out.length ? out[k + 1].start - 1 : lines.length - 1;
    while (end > out[k].start && !lines[end].trim()) end--;
    out[k].end = end;
  }
  return out;
}

const isPublicType = (lines, d) => {
  const head = lines.slice(d.start, d.end + 1).find((l) => DECLARATION.test(l)) ?? "";
  return /^export\s+(interface|type)\s/.test(head) && PUBLIC_TYPES.has(d.name);
};

function measure(path) {
  const rel = relative(root, path).split("\\").join("/");
  if (NOT_OPTIONS.has(rel)) return undefined;
  const text = readFileSync(path, "utf8");
  const lines = text.replace(/\n$/, "").split("\n");
  const whole = WHOLE.test(rel) || CORE.includes(rel);
  const decls = declarations(lines);
  const reads = READS_OPTIONS.test(text);
  if (!whole && !reads && !decls.some((d) => isPublicType(lines, d))) return undefined;
  const counted = new Array(lines.length).fill(whole);
  const types = new Array(lines.length).fill(false);
  for (const d of decls) {
    const isType = isPublicType(lines, d);
    if (!whole && !isType && !(reads && PART_NAME.test(d.name))) continue;
    for (let i = d.start; i <= d.end; i++) {
      counted[i] = true;
      types[i] = isType;
    }
  }
  const code = codeLines(lines);
  const sum = (pick) => lines.reduce((n, _, i) => n + (pick(i) ? 1 : 0), 0);
  const row = {
    file: rel, whole,
    lines: sum((i) => counted[i]), code: sum((i) => counted[i] && code[i]),
    types: sum((i) => counted[i] && types[i]), typesCode: sum((i) => counted[i] && types[i] && code[i]),
  };
  return row.lines > 0 ? row : undefined;
}

const rows = files(src).map(measure).filter(Boolean).sort((a, b) => a.file.localeCompare(b.file));
const sumOf = (list) => {
  const total = (k) => list.reduce((n, r) => n + r[k], 0);
  const out = { files: list.length, lines: total("lines"), code: total("code"), types: total("types"), typesCode: total("typesCode") };
  return { ...out, withoutTypes: { lines: out.lines - out.types, code: out.code - out.typesCode } };
};
const totals = sumOf(rows);
/** The whole files only (the option files and the two core files), without the parts of other files. */
const wholeFiles = sumOf(rows.filter((r) => r.whole));

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ rows, totals, wholeFiles }, null, 2));
} else {
  const pad = (v, n) => String(v).padStart(n);
  console.log(`${"file".padEnd(48)} ${pad("lines", 6)} ${pad("code", 6)} ${pad("types", 6)}`);
  for (const r of rows) console.log(`${(r.file + (r.whole ? "" : " (parts)")).padEnd(48)} ${pad(r.lines, 6)} ${pad(r.code, 6)} ${pad(r.types, 6)}`);
  console.log(`${`total, ${totals.files} files`.padEnd(48)} ${pad(totals.lines, 6)} ${pad(totals.code, 6)} ${pad(totals.types, 6)}`);
  console.log(`${"without the public option types".padEnd(48)} ${pad(totals.withoutTypes.lines, 6)} ${pad(totals.withoutTypes.code, 6)}`);
  console.log(`${`whole files only, ${wholeFiles.files} files`.padEnd(48)} ${pad(wholeFiles.lines, 6)} ${pad(wholeFiles.code, 6)} ${pad(wholeFiles.types, 6)}`);
  console.log(`${"  without the public option types".padEnd(48)} ${pad(wholeFiles.withoutTypes.lines, 6)} ${pad(wholeFiles.withoutTypes.code, 6)}`);
  for (const [file, why] of NOT_OPTIONS) console.log(`(left out: ${file}: ${why})`);
}
