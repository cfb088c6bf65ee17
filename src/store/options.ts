/**
 * The store factories' options as schemas, and their one reader. A typo'd option
 * (`connectonString`) is reported instead of ignored: silently falling back to a default
 * database is the kind of mistake that shows up weeks later as "where did our records go?".
 * Messages show a value's kind, never the value (a connection string holds a password).
 */
import { z } from "zod";
import type { ProblemList } from "../core/configuration-error.js";
import type { Logger } from "../core/logger.js";
import { isText } from "../core/text.js";
import type { PostgresPool } from "./postgres-pool.js";
import { kindOf, optional, readObject, wholeNumber, withDefault, withMethods, type OptionsOf } from "../core/option-schema.js";

/** A string schema (`ok`: its bounded-text check; default: not blank) whose message names the value's kind only. */
const text = (what: string, ok: (v: unknown) => boolean = (v) => isText(v, Infinity, { trim: true })) =>
  z.custom<string>(ok, { error: (issue) => `must be ${what}, got ${kindOf(issue.input)}.` });

export const DEFAULT_SQLITE_FILENAME = "./oral-assessments.sqlite";
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
/** The longest table prefix: the longest table name must fit PostgreSQL's 63 characters. */
const MAX_PREFIX = 63 - "assessments_by_course".length;

export const sqliteStoreSchema = {
  filename: withDefault(text("a path"), DEFAULT_SQLITE_FILENAME, { fix: `Pass a file path such as "${DEFAULT_SQLITE_FILENAME}", or leave it out.` }),
  busyTimeoutMs: withDefault(wholeNumber(0, undefined, "ms"), 5000, { fix: "Pass e.g. 5000, or leave it out." }),
};

export const postgresStoreSchema = {
  connectionString: optional(text("a non-empty string"), { fix: 'Pass e.g. "postgres://user:password@host:5432/db", often from process.env.DATABASE_URL.' }),
  pool: optional(withMethods<PostgresPool>("pg.Pool", ["query", "connect"]), { fix: "Pass new pg.Pool({ … }), or use connectionString instead." }),
  schema: withDefault(text("a lower-case SQL name (letters, digits, _; at most 63)", (v) => isText(v, 63) && IDENTIFIER.test(v)), "public",
    { fix: 'Pass e.g. "public" or "oral", or leave it out.' }),
  tablePrefix: withDefault(text(`"" or a lower-case SQL name (letters, digits, _; at most ${MAX_PREFIX})`, (v) => isText(v, MAX_PREFIX, { min: 0 }) && (v === "" || IDENTIFIER.test(v))), "oral_",
    { fix: 'Pass e.g. "oral_", or leave it out.' }),
  logger: optional(z.custom<Partial<Logger>>((v) => typeof v === "object" && v !== null, { error: (issue) => `must be a logger object (pino or console-like), got ${kindOf(issue.input)}.` }),
    { fix: "Pass e.g. pino() or console, or leave it out." }),
};

export const memoryStoreSchema = {
  maxLaunchRecords: withDefault(wholeNumber(1), 10_000, { fix: "Pass e.g. 10000, or leave it out." }),
};

/** A store's options read against its schema: not an object, an unknown name and every wrong field are problems. */
export function readStoreOptions<S extends Record<string, z.ZodType>>(problems: ProblemList, options: unknown, schema: S): OptionsOf<S> {
  const notObject = `must be an object, got ${kindOf(options)}.`;
  return readObject(schema, options, problems, "", [notObject, `Pass an object such as { ${Object.keys(schema)[0]}: … } or nothing.`], true);
}
