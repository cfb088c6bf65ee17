/**
 * Schema versions. Each backend keeps its own list of steps (the SQL dialects differ) and
 * records the version it reached (SQLite: `PRAGMA user_version`; PostgreSQL: a
 * `schema_version` table). Steps are only ever appended: a released step never changes,
 * because databases in the field have already run it.
 */
import { ConfigurationError } from "../core/configuration-error.js";

export interface Migration<Step> {
  /** 1, 2, 3…: the version the database is at once this step has run. */
  version: number;
  /** For the person reading the database, not for the code. */
  description: string;
  up: Step;
}

/**
 * The steps a database at `current` still needs. A database from a newer release is
 * refused rather than used: its tables may mean something this code does not know.
 */
export function pendingMigrations<Step>(
  component: string,
  option: string,
  current: number,
  migrations: readonly Migration<Step>[],
): Migration<Step>[] {
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new ConfigurationError(component, [{
      option,
      message: `points at a database whose schema is version ${current}, newer than this release of express-oral-assessments understands (${latest}).`,
      fix: "Upgrade express-oral-assessments to the release that wrote it, or point the store at another database.",
    }]);
  }
  return migrations.filter((m) => m.version > current);
}
