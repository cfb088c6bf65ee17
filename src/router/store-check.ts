/**
 * The router's start-up check of its store: opened once (connected, schema created or
 * migrated) as soon as the router is made, so a wrong connection string, a missing `pg`
 * or an unusable SQLite path is told at start-up, with its fix, instead of as a 500 on
 * every request later. `oralAssessments()` is synchronous (it returns the Express router),
 * so the check's outcome is `router.ready()`: the app awaits it before listening to stop
 * at start-up; an app that does not still gets the line with the fix on its logger (by
 * default stderr).
 */
import { ConfigurationError } from "../core/configuration-error.js";
import type { Logger } from "../core/logger.js";

/** What to do about a store that could not be opened, from the error's code or message. */
export function storeFix(error: unknown): string {
  const code = String((error as { code?: unknown })?.code ?? "");
  const message = String((error as Error)?.message ?? error);
  if (["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ECONNRESET"].includes(code) || /ECONNREFUSED|ENOTFOUND|timeout/i.test(message)) {
    return "Check that PostgreSQL is running and reachable at the host and port of postgresStore's connectionString (or pool).";
  }
  if (code === "28P01" || code === "28000") return "Check the user and password in postgresStore's connectionString.";
  if (code === "3D000") return "Create the database (createdb <name>), or fix its name in postgresStore's connectionString.";
  // The file system's refusals come from the SQLite store (making its folder, opening its file).
  if (/^SQLITE_(CANTOPEN|READONLY|PERM|IOERR)/.test(code) || ["ENOTDIR", "EEXIST", "EACCES", "EPERM", "EROFS", "EISDIR"].includes(code) || /unable to open database|directory does not exist|readonly database/i.test(message)) {
    return "Give sqliteStore({ filename }) a file in a folder that exists and this process may write, or pass another store.";
  }
  return "Check the store's settings (docs/stores.md); the message above says what failed.";
}

/** The error `router.ready()` rejects with: the store's own problem (a ConfigurationError already has its fix), or one naming `store`. */
export function storeError(error: unknown): Error {
  if (error instanceof ConfigurationError) return error;
  // A connection string's password never reaches a message: drive-by `user:password@` parts are cut.
  const message = String((error as Error)?.message ?? error).replace(/\/\/[^/@\s]*@/g, "//***@");
  return new ConfigurationError("oralAssessments() store", [{ option: "store", message: `could not be opened: ${message}`, fix: storeFix(error) }]);
}

/**
 * `open` run now and memoized while it succeeds or is pending; after a failure the next
 * `ready()` tries again (PostgreSQL may come up after the app). Every failure is one
 * error line naming the fix.
 */
export function startUpCheck(open: () => Promise<void>, logger: Logger): () => Promise<void> {
  let check: Promise<void> | undefined;
  const ready = () => (check ??= open().catch((cause: unknown) => {
    check = undefined;
    const error = storeError(cause);
    const problem = error instanceof ConfigurationError ? error.problems[0] : undefined;
    logger.error({ event: "store_unavailable", error: problem?.message ?? error.message, fix: problem?.fix }, "the oral-assessments store could not be opened");
    throw error;
  }));
  // Started now; its failure is logged above, and `ready()` reports it to an app that asks.
  ready().catch(() => undefined);
  return ready;
}
