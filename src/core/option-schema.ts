/**
 * Options as zod schemas: each field's type, range, unit and default live in one place,
 * and the factory's ConfigurationError, the TSDoc defaults and the docs' option tables
 * are checked against it (test/core/option-schemas.test.ts).
 *
 * `readOptions` parses an options object field by field rather than as one object: every
 * wrong field becomes its own problem (with its fix), and reads as its default, so the
 * checks across fields (`minTokenLifeMs < tokenTtlMs`) still run on sane values and the
 * integrator sees every mistake in one pass.
 */
import { z } from "zod";
import { ProblemList } from "./configuration-error.js";
import { redactKey } from "./redact.js";
import { isWholeNumber } from "./whole-number.js";

/** What a schema knows beyond zod's own checks. */
export interface OptionMeta {
  /** The fix shown for a wrong value. Default: "Leave it out for the default (…)." */
  fix?: string;
  /** The unit of a number (every duration is in ms; the docs table shows it). */
  unit?: "ms" | "bytes" | "days" | "requests per window" | "requests per minute";
  /** A strict `nested` object's names: `readOptions` refuses any other (`refuseUnknown`) before reading it. */
  known?: readonly string[];
}

/** The metadata of option schemas (kept out of zod's global registry: it is ours). */
export const optionMeta = z.registry<OptionMeta>();

/** What a value is, without showing it (a connection string holds a password): "a string", "an object", "null", … */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value.length === 0 ? "an empty string" : "a string";
  return typeof value === "object" ? "an object" : typeof value;
}

/**
 * A value as a problem message may show it: key-like strings are redacted (a key pasted
 * into the wrong option is a real mistake; `secret`: the key given, however it looks) and
 * long strings cut; anything else but a number by its kind.
 */
export function shown(value: unknown, secret?: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return kindOf(value);
  const hasSecret = typeof secret === "string" && secret.length >= 8 && value.includes(secret);
  if (hasSecret || /(svc|ct)_(live|test)_/.test(value)) return `a key-like value (${redactKey(value)})`;
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

/**
 * The one whole-number check of every factory: an integer from `min` (up to `max`), in
 * `unit`. One message for every way to miss it (not a number, a fraction, out of range).
 */
export function wholeNumber(min: number, max = Infinity, unit?: OptionMeta["unit"]) {
  const range = max === Infinity ? `≥ ${min}` : `from ${min} to ${max}`;
  const error = (issue: { input?: unknown }) => `must be a whole number${unit ? ` of ${unit}` : ""} ${range}, got ${shown(issue.input)}.`;
  // zod's own `int` first: a non-number or a fraction stops the checks there, a number out
  // of range does not, so an object's checks across fields (zod runs them only when no
  // issue stopped) still run and the integrator sees every mistake in one pass.
  return z.number({ error }).int({ error }).refine((v) => isWholeNumber(v, min, max), { error });
}

/** A number in a range that need not be whole (shares, ratios, days). */
export function ratio(min: number, max: number, { minExclusive = false, maxExclusive = false } = {}) {
  const upper = max === Infinity ? "" : ` ${maxExclusive ? "up to (not including)" : "to"} ${max}`;
  const error = (issue: { input?: unknown }) => `must be a number ${minExclusive ? "above" : "from"} ${min}${upper}, got ${shown(issue.input)}.`;
  const low = minExclusive ? z.number({ error }).gt(min, { error }) : z.number({ error }).min(min, { error });
  return maxExclusive ? low.lt(max, { error }) : low.max(max, { error });
}

/** `true` or `false`. */
export const flag = () => z.boolean({ error: "must be true or false." });

/** A function (its signature is the TypeScript type's business). */
export const fn = <T>(what = "a function") =>
  z.custom<T>((v) => typeof v === "function", { error: (issue) => `must be ${what}, got ${typeof issue.input}.` });

/**
 * An object with every method in `methods` (a store, a rate budget, a pg pool: what the
 * package calls on it); the message names the interface and the methods missing.
 */
export function withMethods<T>(name: string, methods: readonly string[]) {
  const missing = (v: unknown) => methods.filter((m) => typeof (v as Record<string, unknown> | null)?.[m] !== "function");
  return z.custom<T>((v) => missing(v).length === 0, { error: (issue) => `does not implement ${name} (missing ${missing(issue.input).join(", ")}).` });
}

/** `schema` with its metadata (kept in `optionMeta`). */
function described<S extends z.ZodType>(schema: S, meta: OptionMeta): S {
  optionMeta.add(schema, meta);
  return schema;
}

/**
 * `schema` with its default (and metadata). A wrong value reads as the default, and its fix
 * says so unless `meta` gives one ("… for the default (5000).", an object's as written:
 * "… for { burst: 3, refillMs: 60000 }."). Not for a function default: zod calls a function
 * given to `.default()` as a factory of the default (read those `optional`, then `?? theDefault`).
 */
export const withDefault = <S extends z.ZodType>(schema: S, value: z.output<S>, meta: OptionMeta = {}) =>
  described(schema.default(value as never), { fix: `Leave it out for ${isRecord(value) ? written(value) : `the default (${JSON.stringify(value)})`}.`, ...meta });

/** An object default as a fix writes it: `{ burst: 600, refillMs: 100 }`, nested objects alike (a field with no default left out). */
const written = (value: object): string => `{ ${Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${isRecord(v) ? written(v) : JSON.stringify(v)}`).join(", ")} }`;

/** `schema`, optional, with no default (undefined stays undefined). */
export const optional = <S extends z.ZodType>(schema: S, meta: OptionMeta = {}) => described(schema.optional(), meta);

type Shape = Record<string, z.ZodType>;
export type OptionsOf<S extends Shape> = { [K in keyof S]: z.output<S[K]> };

/**
 * The options `input` read against `shape`, field by field: each wrong field adds one
 * problem named `at.field` (with its fix) and reads as its default; a strict `nested`
 * field's unknown names come first. `input` that is not an object reads as `{}` (the
 * caller reports that in its own words).
 */
export function readOptions<S extends Shape>(shape: S, input: unknown, problems: ProblemList, at = ""): OptionsOf<S> {
  const record = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const option = at ? `${at}.${key}` : key;
    const known = optionMeta.get(schema)?.known;
    if (known && isRecord(record[key])) refuseUnknown(record[key], known, problems, option);
    const result = schema.safeParse(record[key]);
    if (!result.success) addIssues(problems, schema, result.error.issues, option);
    out[key] = result.success ? result.data : schema.safeParse(undefined).data;
  }
  return out as OptionsOf<S>;
}

/** Every field's default, as reading nothing gives them (for code that needs them without options). */
export const defaultsOf = <S extends Shape>(shape: S): Readonly<OptionsOf<S>> => Object.freeze(readOptions(shape, {}, new ProblemList()));

/** What an options object that is not one is told, its fields named from its shape: "must be an object { a, b }.". */
const notAnObject = (shape: Shape) => `must be an object { ${Object.keys(shape).join(", ")} }.`;

/**
 * An options object inside another (`circuitBreaker`, the emulator's `rateLimits`): not an
 * object is one problem (`notObject`, by default `notAnObject`), each wrong field another
 * (`circuitBreaker.openMs`); left out, it is every field's default. `strict` (the default):
 * a name the shape lacks is a problem too, as `readObject` reports it (read by `readOptions`).
 */
export const nested = <S extends Shape>(shape: S, meta: OptionMeta = {}, { strict = true, notObject = notAnObject(shape) } = {}) =>
  withDefault(z.object(shape, { error: notObject }), defaultsOf(shape) as z.output<z.ZodObject<S>>, strict ? { ...meta, known: Object.keys(shape) } : meta);

/**
 * zod's issues as problems, one per option (the first issue of each path), each with its
 * fix: the check's own (`checked`), else that of the innermost field along the issue's
 * path that has one (a nested object's or a list entry's own field), else the option's.
 */
export function addIssues(problems: ProblemList, schema: z.ZodType, issues: readonly z.core.$ZodIssue[], at: string): void {
  const seen = new Set<string>();
  for (const issue of issues) {
    const option = at + issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
    if (seen.has(option)) continue;
    seen.add(option);
    const fix = (issue as { params?: { fix?: string } }).params?.fix ?? fixAlong(schema, issue.path) ?? "Leave it out for the default.";
    problems.add(option, issue.message.replaceAll(OPTION, option), fix.replaceAll(OPTION, option));
  }
}

/** The fix of the innermost schema along `path` that has one (through defaults, optionals, objects and arrays). */
function fixAlong(schema: z.ZodType, path: readonly PropertyKey[]): string | undefined {
  let fix = optionMeta.get(schema)?.fix;
  let s: z.ZodType | undefined = schema;
  for (const key of path) {
    while (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.def.innerType as z.ZodType;
    s = s instanceof z.ZodObject ? (s.shape as Shape)[String(key)] : s instanceof z.ZodArray ? (s.element as z.ZodType) : undefined;
    fix = (s && optionMeta.get(s)?.fix) ?? fix;
  }
  return fix;
}

/** Whether `value` is an object (not null, not an array). */
const isRecord = (value: unknown): value is object => typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether `value` is absent or an object; anything else is one problem at `at`. */
export function objectOrAbsent(value: unknown, at: string, problems: ProblemList, message: string, fix: string): boolean {
  if (value === undefined || isRecord(value)) return true;
  problems.add(at, message, fix);
  return false;
}

/**
 * Each name in `record` that `known` lacks is one problem: a typo'd option would otherwise
 * read as its default without a word. The fix names the option meant: `meant` (common
 * misspellings) first, else the known name closest to it (`closestName`), else the list.
 */
export function refuseUnknown(
  record: object, known: readonly string[], problems: ProblemList, at = "", message = "is not an option.", meant: Record<string, string> = {},
): void {
  for (const key of Object.keys(record).filter((k) => !known.includes(k))) {
    const likely = Object.hasOwn(meant, key) ? meant[key] : closestName(key, known);
    const fix = likely !== undefined ? `Did you mean \`${likely}\`? Rename it.` : `Remove it; known options are ${known.join(", ")}.`;
    problems.add(at ? `${at}.${key}` : key, message, fix);
  }
}

/**
 * The name of `known` a mistyped `name` most likely meant: the same but for case, `_` and
 * `-` (`loginURL`, `login_url` → `loginUrl`), else the one nearest by edit distance when it
 * is near enough (2 edits, 1 for names of up to 5 characters) and no other is as near.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const folded = (s: string) => s.toLowerCase().replace(/[_-]/g, "");
  const same = known.find((k) => folded(k) === folded(name));
  if (same !== undefined) return same;
  const limit = name.length <= 5 ? 1 : 2;
  const near = known.map((k) => ({ k, d: editDistance(folded(k), folded(name)) })).filter(({ d }) => d <= limit).sort((a, b) => a.d - b.d);
  return near.length > 0 && near[0]!.d !== near[1]?.d ? near[0]!.k : undefined;
}

/** Edit distance counting insertions, deletions, substitutions and swaps of neighbours (`brust` → `burst`: 1). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * An options object (`launchLimit`, `prepare`, …; `at` "" for a factory's own) read against
 * `shape`: not an object is one problem at `at` (or `options`; `notObject`: its message and
 * fix) and reads as every default. `strict` (the default): a name the shape lacks is a problem too.
 */
export function readObject<S extends Shape>(
  shape: S, value: unknown, problems: ProblemList, at: string, notObject: [message: string, fix: string], strict = true,
): OptionsOf<S> {
  const given = objectOrAbsent(value, at || "options", problems, ...notObject) && value !== undefined;
  if (given && strict) refuseUnknown(value as object, Object.keys(shape), problems, at);
  return readOptions(shape, value, problems, at);
}

/**
 * A URL option's first step (the platform's `baseUrl`, an origin, …): `value` parsed, or
 * undefined with one problem at `option`: `notString` when it is not a non-empty string,
 * `notUrl(value)` when it does not parse; `fix` for both. What a URL must be beyond that
 * differs per option.
 */
export function readUrl(value: unknown, option: string, problems: ProblemList, fix: string, notString: string, notUrl: (value: string) => string) {
  if (typeof value !== "string" || value === "") problems.add(option, notString, fix);
  else if (!URL.canParse(value)) problems.add(option, notUrl(value), fix);
  else return new URL(value);
  return undefined;
}

/** Stands for the option's name in a `checked` schema's messages, replaced when reported. */
const OPTION = "\u0000option\u0000";

/**
 * A schema from a check written against a problem list (origins, site URLs: checks whose
 * message and fix depend on the value and name the option). Undefined stays undefined.
 */
export function checked<T>(check: (value: unknown, option: string, problems: ProblemList) => T | undefined) {
  return z.unknown().transform((value, ctx): T | undefined => {
    if (value === undefined) return undefined;
    const problems = new ProblemList();
    const out = check(value, OPTION, problems);
    for (const p of problems.all) ctx.addIssue({ code: "custom", message: p.message, params: { fix: p.fix } });
    return out;
  });
}

/** A string matching `re`; one message for a non-string and a mismatch alike. */
export const pattern = (re: RegExp, message: string) => z.string({ error: message }).regex(re, { error: message });
