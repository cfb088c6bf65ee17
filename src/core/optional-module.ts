/**
 * Loads an optional peer dependency synchronously, from where this package is installed.
 *
 * Why not `import()`, as the stores load `pg` and `better-sqlite3`: a store opens lazily
 * anyway, but metrics are registered while `oralAssessments()` runs, so that a scrape
 * right after start-up shows them and a missing `prom-client` is part of the router's one
 * ConfigurationError, not a rejection later. A synchronous `require` needs an anchor
 * (the file to resolve from), and this source compiles to both ESM and CommonJS, where
 * neither `import.meta.url` nor `__filename` exists in the other. So the anchor is this
 * file as V8 names it in a stack frame (a `file:` URL in ESM, a path in CommonJS), which
 * `createRequire` takes either way; the app's working folder is the fallback.
 */
import { createRequire } from "node:module";
import { join } from "node:path";

/** What `require(name)` answers; undefined when the package is not installed. Other failures are thrown. */
export function requireOptional<T>(name: string): T | undefined {
  try {
    return createRequire(anchor())(name) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    // Only the package itself missing is "not installed": a missing file inside it is a broken install.
    if (code === "MODULE_NOT_FOUND" && String((error as Error).message).includes(`'${name}'`)) return undefined;
    throw error;
  }
}

function anchor(): string {
  const original = Error.prepareStackTrace;
  try {
    Error.prepareStackTrace = (_error, frames) => frames;
    const frames = new Error().stack as unknown as NodeJS.CallSite[] | undefined;
    const file = Array.isArray(frames) ? frames[0]?.getFileName() : undefined;
    if (file && (file.startsWith("file:") || file.startsWith("/") || /^[A-Za-z]:[\\/]/.test(file))) return file;
  } catch {
    // A stack we cannot read: fall back below.
  } finally {
    Error.prepareStackTrace = original;
  }
  return join(process.cwd(), "noop.js");
}
