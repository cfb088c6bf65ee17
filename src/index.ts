/**
 * express-oral-assessments: the public face. Re-exports only; every name here is part
 * of the package's contract.
 */
export { ConfigurationError, type ConfigurationProblem } from "./core/configuration-error.js";
export { redactKey } from "./core/redact.js";
export type { Logger } from "./core/logger.js";

export * from "./platform/index.js";
export * as schemas from "./platform/schemas.js";

export { memoryStore } from "./store/memory.js";
export { sqliteStore, DEFAULT_SQLITE_FILENAME, type SqliteStore, type SqliteStoreOptions } from "./store/sqlite.js";
export { postgresStore, type PostgresStoreOptions } from "./store/postgres.js";
export type { OralStore, CourseRecord, ClassRecord, AssessmentRecord } from "./store/types.js";

export {
  oralAssessments, PrepareError, type OralAssessmentsRouter, type OralAssessmentsOptions, type LaunchContext, type StudentIdentity,
  type PrewarmOptions, type PrepareInput, type PrepareProgress,
} from "./router/index.js";

export {
  redisFleet, fleetReady, inProcessFleet, inProcessLaunchAttempts, waitForAttempt, inProcessPreparedTokens, inProcessPlanLeases, inProcessLaunchLimiter,
  type RedisFleet, type RedisFleetOptions, type Fleet, type InProcessFleetOptions, type FleetRateBudgetStats, type SharedBudget,
  type LaunchAttemptStore, type AttemptOutcome as FleetAttemptOutcome, type AttemptTicket, type AttemptView, type AttemptTimings,
  type PreparedTokenStore, type PreparedToken, type PlanLeaseStore, type PlanLeaseTimings,
  type LaunchLimiter, type LaunchLimitDecision, type LaunchLimitSettings,
} from "./fleet/index.js";
