/**
 * The record stores behind the router. Importing this loads neither better-sqlite3 nor
 * pg: each is loaded when a store that needs it is first used.
 */
export type {
  AssessmentRecord, ClassRecord, CourseRecord, OralStore,
  IdempotencyKey, IdempotencyBegin, IdempotencyBeginInput, IdempotencyCompleteInput,
} from "./types.js";
export { DEFAULT_ORGANIZATION, IDEMPOTENCY_TTL_MS, IDEMPOTENCY_PENDING_MS } from "./types.js";
export { memoryStore } from "./memory.js";
export { sqliteStore, DEFAULT_SQLITE_FILENAME, type SqliteStore, type SqliteStoreOptions } from "./sqlite.js";
export { postgresStore, type PostgresStoreOptions } from "./postgres.js";
