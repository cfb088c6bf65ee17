/**
 * The part of a `pg.Pool` the PostgreSQL store uses, written out as our own structural
 * types. `pg` is an optional peer dependency: naming its types in our public declarations
 * would make every TypeScript consumer without `pg` (and without `skipLibCheck`) fail
 * with TS2307 "Cannot find module 'pg'". A real `pg.Pool` satisfies these types as it is,
 * so callers pass `new pg.Pool(…)` with no cast.
 */

/** What a query answers: the rows, and how many rows the statement touched. */
export interface PostgresQueryResult<Row> {
  rows: Row[];
  rowCount: number | null;
}

/** One checked-out connection (`pg.PoolClient`): queries, then back to the pool. */
export interface PostgresPoolClient {
  // `any` rows, as pg's own default: the store names the row type where it reads one.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult<any>>;
  /** Gives the connection back; an error (or `true`) destroys it instead. */
  release(error?: Error | boolean): void;
}

/** A connection pool (`pg.Pool`). */
export interface PostgresPool {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult<any>>;
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}
